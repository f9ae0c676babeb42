import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { deriveKey } from '../../../lib/secrets.ts'

/** Sealed JSON inside `mail_outbox.sealed_body`. */
export interface MailBody {
  text: string
  html: string
  /** The message's call to action (an accept link); logged by the file transport only. */
  actionUrl?: string
}

export interface MailSealer {
  seal: (body: MailBody, rowId: string) => string
  open: (sealed: string, rowId: string) => MailBody
}

const VERSION = 'v1'

/**
 * AES-256-GCM with a key derived by HKDF-SHA256 from JWT_SECRET (info
 * `mail-outbox`), so a database dump alone does not reveal invitation links.
 * The row id is the additional authenticated data: a body copied into another
 * row does not open. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export function createMailSealer (secret: string): MailSealer {
  const key = deriveKey(secret, 'mail-outbox')

  return {
    seal (body, rowId) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(Buffer.from(rowId))
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()])
      return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => typeof part === 'string' ? part : part.toString('base64url')).join('.')
    },

    open (sealed, rowId) {
      const [version, iv, tag, ciphertext] = sealed.split('.')
      if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new Error('Unknown sealed body format')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 })
      decipher.setAAD(Buffer.from(rowId))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
      return JSON.parse(plain) as MailBody
    }
  }
}
