import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * AES-256-GCM, the one sealing primitive of the service (mail bodies, signing keys, ERP
 * credentials). `aad` (additional authenticated data) binds a sealed value to where it is kept,
 * e.g. its row id: copied elsewhere, it does not open.
 */
export interface SealedParts {
  iv: Buffer
  tag: Buffer
  data: Buffer
}

export function sealBytes (key: Buffer, plain: Buffer | string, aad?: string): SealedParts {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad))
  const data = Buffer.concat([cipher.update(plain), cipher.final()])
  return { iv, tag: cipher.getAuthTag(), data }
}

/** Throws when the key, the aad or the bytes are not the ones sealed. */
export function openBytes (key: Buffer, sealed: SealedParts, aad?: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: 16 })
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad))
  decipher.setAuthTag(sealed.tag)
  return Buffer.concat([decipher.update(sealed.data), decipher.final()])
}

const VERSION = 'v1'

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts: for a text column. */
export function sealText (key: Buffer, plain: string, aad?: string): string {
  const { iv, tag, data } = sealBytes(key, plain, aad)
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.')
}

export function openText (key: Buffer, sealed: string, aad?: string): string {
  const [version, iv, tag, data] = sealed.split('.')
  if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) throw new Error('Unknown sealed text format')
  return openBytes(key, { iv: Buffer.from(iv, 'base64url'), tag: Buffer.from(tag, 'base64url'), data: Buffer.from(data, 'base64url') }, aad).toString('utf8')
}
