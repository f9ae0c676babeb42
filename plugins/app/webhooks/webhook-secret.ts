import { randomBytes } from 'node:crypto'
import { openText, sealText } from '../../../lib/aead.ts'
import { deriveKey } from '../../../lib/secrets.ts'

/** `whsec_` and 32 random bytes, base64url: shown once, at creation or rotation. */
export function newWebhookSecret (): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

export interface WebhookSecretSealer {
  seal: (secret: string, endpointId: string) => string
  open: (sealed: string, endpointId: string) => string
}

/**
 * The service must sign with the secret, so it is kept sealed (lib/aead.ts), not hashed: under a
 * key derived from ERP_CREDENTIALS_KEY (HKDF info `webhook-secrets`), bound to the endpoint's
 * id, so a database dump alone does not reveal it and a value copied to another row does not open.
 */
export function createWebhookSecretSealer (rootKey: string): WebhookSecretSealer {
  const key = deriveKey(rootKey, 'webhook-secrets')
  return {
    seal: (secret, endpointId) => sealText(key, secret, endpointId),
    open: (sealed, endpointId) => openText(key, sealed, endpointId)
  }
}
