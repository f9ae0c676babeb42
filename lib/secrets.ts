import { hkdfSync, randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/**
 * Reads a secret kept under DATA_DIR/secrets, creating it (mode 0600) on first
 * use. This is what lets `npm start` run with no configuration while keeping
 * tokens and the embedded database valid across restarts.
 */
export async function readOrCreateSecret (file: string, bytes = 32): Promise<string> {
  try {
    const existing = (await readFile(file, 'utf8')).trim()
    if (existing !== '') return existing
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const secret = randomBytes(bytes).toString('base64url')
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
