import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto'
import { join } from 'node:path'
import { createSealedFile } from './keys-file.ts'

/**
 * RS256 signing keys, generated on first start and kept (encrypted) in
 * DATA_DIR/secrets/oidc-signing-keys.json. Rotation publishes a key before it
 * signs: `rotate` adds a "next" key (in the JWKS, not signing), `promote` makes
 * it "current" and retires the old one, which stays published for
 * `retainSeconds` (the access-token TTL) so tokens it signed still verify.
 */
export type KeyStatus = 'current' | 'next' | 'retired'

export interface StoredKey {
  kid: string
  status: KeyStatus
  createdAt: string
  /** Retired keys only: when they leave the JWKS. */
  publishedUntil?: string
  jwk: JsonWebKey
}

export interface SigningKeys {
  /** Private JWKs for oidc-provider's `jwks` option, the signing key first. */
  jwks: { keys: JsonWebKey[] }
  signingKid: string
}

export interface SigningKeyStore {
  /** Reads the keys, creating the first one when there is no file yet. */
  load: () => Promise<SigningKeys>
  rotate: () => Promise<StoredKey>
  promote: (options: { retainSeconds: number }) => Promise<StoredKey>
  list: () => Promise<Array<Omit<StoredKey, 'jwk'>>>
}

export interface SigningKeyStoreOptions {
  dataDir: string
  jwtSecret: string
  now?: () => Date
}

export function signingKeysFile (dataDir: string): string {
  return join(dataDir, 'secrets', 'oidc-signing-keys.json')
}

export function createSigningKeyStore (options: SigningKeyStoreOptions): SigningKeyStore {
  const file = createSealedFile(signingKeysFile(options.dataDir), options.jwtSecret)
  const now = options.now ?? (() => new Date())

  function published (keys: StoredKey[]): StoredKey[] {
    const at = now().getTime()
    return keys.filter((key) => key.publishedUntil === undefined || Date.parse(key.publishedUntil) > at)
  }

  async function readKeys (): Promise<StoredKey[]> {
    const stored = await file.read() as { keys?: StoredKey[] } | undefined
    if (stored !== undefined) return published(stored.keys ?? [])
    const first = newKey('current', now())
    // Another process may have created the file meanwhile: then its key wins.
    if (await file.create({ keys: [first] })) return [first]
    return readKeys()
  }

  async function write (keys: StoredKey[]): Promise<void> {
    await file.replace({ keys: published(keys) })
  }

  return {
    async load () {
      const keys = await readKeys()
      const current = keys.find((key) => key.status === 'current')
      if (current === undefined) throw new Error('The signing keys file has no current key')
      const ordered = [current, ...keys.filter((key) => key !== current)]
      return { jwks: { keys: ordered.map((key) => key.jwk) }, signingKid: current.kid }
    },

    async rotate () {
      const keys = await readKeys()
      if (keys.some((key) => key.status === 'next')) throw new Error('A next key already exists: promote it first')
      const next = newKey('next', now())
      await write([...keys, next])
      return next
    },

    async promote ({ retainSeconds }) {
      const keys = await readKeys()
      const next = keys.find((key) => key.status === 'next')
      if (next === undefined) throw new Error('There is no next key: run rotate first')
      const publishedUntil = new Date(now().getTime() + retainSeconds * 1000).toISOString()
      const updated = keys.map((key): StoredKey => {
        if (key === next) return { ...key, status: 'current' }
        if (key.status === 'current') return { ...key, status: 'retired', publishedUntil }
        return key
      })
      await write(updated)
      return { ...next, status: 'current' }
    },

    async list () {
      return (await readKeys()).map(({ jwk: _jwk, ...key }) => key)
    }
  }
}

function newKey (status: KeyStatus, at: Date): StoredKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = privateKey.export({ format: 'jwk' })
  const kid = thumbprint(jwk)
  return { kid, status, createdAt: at.toISOString(), jwk: { ...jwk, kid, alg: 'RS256', use: 'sig' } }
}

/** RFC 7638 thumbprint of an RSA key. */
function thumbprint (jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n })
  return createHash('sha256').update(canonical).digest('base64url')
}
