import { openBytes, sealBytes } from '../lib/aead.ts'
import { deriveKey } from '../lib/secrets.ts'

/**
 * The signing keys are sealed with AES-256-GCM under a key derived from JWT_SECRET (HKDF info
 * `oidc-signing-keys`): a copy of the database (or of an old keys file) alone does not reveal the
 * private keys. Format: JSON `{ v: 1, iv, tag, data }`, base64url.
 */
export interface Sealer {
  seal: (content: unknown) => string
  /** `where` names the sealed text's origin in error messages. */
  open: (text: string, where: string) => unknown
}

export function createSealer (jwtSecret: string): Sealer {
  const key = deriveKey(jwtSecret, 'oidc-signing-keys')
  return {
    seal (content) {
      const { iv, tag, data } = sealBytes(key, JSON.stringify(content))
      return `${JSON.stringify({ v: 1, iv: iv.toString('base64url'), tag: tag.toString('base64url'), data: data.toString('base64url') })}\n`
    },

    open (text, where) {
      const sealed = JSON.parse(text) as { v?: number, iv?: string, tag?: string, data?: string }
      if (sealed.v !== 1 || sealed.iv === undefined || sealed.tag === undefined || sealed.data === undefined) {
        throw new Error(`${where}: unknown format`)
      }
      try {
        const plain = openBytes(key, { iv: Buffer.from(sealed.iv, 'base64url'), tag: Buffer.from(sealed.tag, 'base64url'), data: Buffer.from(sealed.data, 'base64url') })
        return JSON.parse(plain.toString('utf8'))
      } catch (cause) {
        throw new Error(`${where} cannot be decrypted (was JWT_SECRET changed?)`, { cause })
      }
    }
  }
}
