import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { deriveKey } from '../../../lib/secrets.ts'

/**
 * Addon-source credentials (a token or a deploy key) sealed with AES-256-GCM
 * under a key derived from ERP_CREDENTIALS_KEY (HKDF info `addon-source-credentials`),
 * bound to the source's id as additional data: a value copied into another row
 * does not open. Format `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export interface CredentialSealer {
  seal: (secret: string, sourceId: number) => string
  open: (sealed: string, sourceId: number) => string
}

export function createCredentialSealer (rootKey: string): CredentialSealer {
  const key = deriveKey(rootKey, 'addon-source-credentials')
  return {
    seal (secret, sourceId) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(String(sourceId)))
      const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return ['v1', ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url'))].join('.')
    },
    open (sealed, sourceId) {
      const [version, iv, tag, data] = sealed.split('.')
      if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('Unknown sealed credential format')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 }).setAAD(Buffer.from(String(sourceId)))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
    }
  }
}
