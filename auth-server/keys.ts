import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type pg from 'pg'
import { createSealedRow } from './keys-row.ts'
import { createSealer } from './keys-seal.ts'

/**
 * RS256 signing keys, generated on first start and kept (sealed) in PostgreSQL,
 * so every replica signs with the same key and publishes the same JWKS.
 * Rotation publishes a key before it signs: `rotate` adds a "next" key (in the
 * JWKS, not signing), `promote` makes it "current" and retires the old one,
 * which stays published for `retainSeconds` (the access-token TTL) so tokens it
 * signed still verify. Running servers read the keys at start.
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
  pool: pg.Pool
  jwtSecret: string
  /** Where earlier versions kept the keys in a file: imported once, so that tokens they signed stay valid. */
  dataDir?: string
  now?: () => Date
}

/** The keys file of earlier versions (same sealing), read once when the database has no keys yet. */
export function legacySigningKeysFile (dataDir: string): string {
  return join(dataDir, 'secrets', 'oidc-signing-keys.json')
}

export function createSigningKeyStore (options: SigningKeyStoreOptions): SigningKeyStore {
  const sealer = createSealer(options.jwtSecret)
  const row = createSealedRow(options.pool, sealer)
  const now = options.now ?? (() => new Date())

  async function legacyKeys (): Promise<{ keys?: StoredKey[] } | undefined> {
    if (options.dataDir === undefined) return undefined
    const file = legacySigningKeysFile(options.dataDir)
    try {
      return sealer.open(await readFile(file, 'utf8'), file) as { keys?: StoredKey[] }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  function published (keys: StoredKey[]): StoredKey[] {
    const at = now().getTime()
    return keys.filter((key) => key.publishedUntil === undefined || Date.parse(key.publishedUntil) > at)
  }

  async function readKeys (): Promise<StoredKey[]> {
    const stored = await row.read() as { keys?: StoredKey[] } | undefined
    if (stored !== undefined) return published(stored.keys ?? [])
    const first = await legacyKeys() ?? { keys: [newKey('current', now())] }
    // Another replica may have stored its keys meanwhile: then its keys win.
    await row.create(first)
    return readKeys()
  }

  /** Changes the stored keys in one transaction (rotate and promote from two shells cannot interleave). */
  function change (edit: (keys: StoredKey[]) => { keys: StoredKey[], result: StoredKey }): Promise<StoredKey> {
    return row.update((content) => {
      const { keys, result } = edit(published((content as { keys?: StoredKey[] }).keys ?? []))
      return { content: { keys: published(keys) }, result }
    })
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
      await readKeys()
      return change((keys) => {
        if (keys.some((key) => key.status === 'next')) throw new Error('A next key already exists: promote it first')
        const next = newKey('next', now())
        return { keys: [...keys, next], result: next }
      })
    },

    async promote ({ retainSeconds }) {
      await readKeys()
      return change((keys) => {
        const next = keys.find((key) => key.status === 'next')
        if (next === undefined) throw new Error('There is no next key: run rotate first')
        const publishedUntil = new Date(now().getTime() + retainSeconds * 1000).toISOString()
        const updated = keys.map((key): StoredKey => {
          if (key === next) return { ...key, status: 'current' }
          if (key.status === 'current') return { ...key, status: 'retired', publishedUntil }
          return key
        })
        return { keys: updated, result: { ...next, status: 'current' } }
      })
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
