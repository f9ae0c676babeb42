import { hkdfSync, randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/**
 * Reads a secret kept under DATA_DIR/secrets, creating it (mode 0600) on first
 * use. This is what lets `npm start` run with no configuration while keeping
 * tokens and the embedded database valid across restarts.
 */
export async function readOrCreateSecret (file: string, bytes = 32): Promise<string> {
  return await readSecretFile(file) ?? await createSecretFile(file, randomBytes(bytes).toString('base64url'))
}

/** The secret in `file`, or undefined when there is none yet. */
async function readSecretFile (file: string): Promise<string | undefined> {
  try {
    const existing = (await readFile(file, 'utf8')).trim()
    return existing === '' ? undefined : existing
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    return undefined
  }
}

/** Writes `secret` unless the file exists (a replica sharing DATA_DIR won the race), and returns what the file holds. */
async function createSecretFile (file: string, secret: string): Promise<string> {
  // Only the secrets folder itself is private; its parents keep normal modes
  // (the embedded PostgreSQL runs as another user and must traverse DATA_DIR).
  await mkdir(dirname(dirname(file)), { recursive: true })
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return (await readFile(file, 'utf8')).trim()
}

/**
 * A key for one purpose (`mail-outbox`, `payments-sandbox`, …) derived from a
 * root secret with HKDF-SHA256, so one configured secret yields independent keys.
 */
export function deriveKey (rootSecret: string, purpose: string, bytes = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', rootSecret, Buffer.alloc(0), purpose, bytes))
}

/** JWT_SECRET, or the one generated under DATA_DIR on first start (the portal and the auth server agree on it). */
export async function resolveJwtSecret (config: { JWT_SECRET?: string, DATA_DIR: string }): Promise<string> {
  return config.JWT_SECRET ?? await readOrCreateSecret(resolve(config.DATA_DIR, 'secrets', 'jwt-secret'))
}

export interface ErpCredentialsKey {
  /** base64url of the key's bytes: what ERP_CREDENTIALS_KEY holds. */
  value: string
  /**
   * `configured`: ERP_CREDENTIALS_KEY; `file`: read from DATA_DIR; `generated`: a new
   * random key; `adopted`: the key the existing instances' passwords were made with.
   */
  origin: 'configured' | 'file' | 'generated' | 'adopted'
  /** The file under DATA_DIR, unless configured. */
  file?: string
}

/** The HMAC key of the ERP database passwords: ERP_CREDENTIALS_KEY's bytes (base64 or base64url). */
export function erpPasswordKey (credentialsKey: string): Buffer {
  return Buffer.from(credentialsKey, 'base64')
}

/**
 * The key ERP database passwords were derived from when they hung off JWT_SECRET:
 * HKDF-SHA256(JWT_SECRET, `erp-database-passwords`), base64url.
 */
export function jwtDerivedErpCredentialsKey (jwtSecret: string): string {
  return deriveKey(jwtSecret, 'erp-database-passwords').toString('base64url')
}

/**
 * ERP_CREDENTIALS_KEY, else DATA_DIR/secrets/erp-credentials-key, created on first start.
 * An installation that already has instances gets, in that file, the key their
 * database passwords were derived from (from JWT_SECRET): their containers and
 * Secrets keep working unchanged, and from then on the key no longer follows
 * JWT_SECRET. A new installation gets a random key.
 */
export async function resolveErpCredentialsKey (
  config: { ERP_CREDENTIALS_KEY?: string, DATA_DIR: string },
  existing: { jwtSecret: string, hasInstances: () => Promise<boolean> }
): Promise<ErpCredentialsKey> {
  if (config.ERP_CREDENTIALS_KEY !== undefined) return { value: config.ERP_CREDENTIALS_KEY, origin: 'configured' }
  const file = resolve(config.DATA_DIR, 'secrets', 'erp-credentials-key')
  const stored = await readSecretFile(file)
  if (stored !== undefined) return { value: stored, origin: 'file', file }
  const adopt = await existing.hasInstances()
  const value = await createSecretFile(file, adopt ? jwtDerivedErpCredentialsKey(existing.jwtSecret) : randomBytes(32).toString('base64url'))
  return { value, origin: adopt ? 'adopted' : 'generated', file }
}
