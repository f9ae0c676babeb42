import { openText, sealText } from '../../../lib/aead.ts'
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

/**
 * AES-256-GCM with a key derived by HKDF-SHA256 from JWT_SECRET (info
 * `mail-outbox`), so a database dump alone does not reveal invitation links.
 * The row id is the additional authenticated data: a body copied into another
 * row does not open. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export function createMailSealer (secret: string): MailSealer {
  const key = deriveKey(secret, 'mail-outbox')
  return {
    seal: (body, rowId) => sealText(key, JSON.stringify(body), rowId),
    open: (sealed, rowId) => JSON.parse(openText(key, sealed, rowId)) as MailBody
  }
}
