import { openText, sealText } from '../../../lib/aead.ts'
import { deriveKey } from '../../../lib/secrets.ts'

/**
 * Addon-source credentials (a token or a deploy key) sealed (lib/aead.ts) under a key derived
 * from ERP_CREDENTIALS_KEY (HKDF info `addon-source-credentials`), bound to the source's id: a
 * value copied into another row does not open.
 */
export interface CredentialSealer {
  seal: (secret: string, sourceId: number) => string
  open: (sealed: string, sourceId: number) => string
}

export function createCredentialSealer (rootKey: string): CredentialSealer {
  const key = deriveKey(rootKey, 'addon-source-credentials')
  return {
    seal: (secret, sourceId) => sealText(key, secret, String(sourceId)),
    open: (sealed, sourceId) => openText(key, sealed, String(sourceId))
  }
}
