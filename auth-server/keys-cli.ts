/**
 * Signing-key rotation for the auth server:
 *
 *   node auth-server/keys-cli.ts list
 *   node auth-server/keys-cli.ts rotate    # add a "next" key: published in the JWKS, not signing
 *   node auth-server/keys-cli.ts promote   # the next key signs; the old one stays published
 *                                          # for OAUTH_ACCESS_TOKEN_TTL_SECONDS, then disappears
 *
 * The keys live in PostgreSQL, shared by every replica. Running auth servers
 * read them at start: restart them (a rolling restart) after each step.
 */
import pg from 'pg'
import { loadConfig } from '../config/env.ts'
import { resolveJwtSecret } from '../lib/secrets.ts'
import { createSigningKeyStore, type SigningKeyStore } from './keys.ts'

export async function runKeysCli (argv: string[], log: (line: string) => void = console.log): Promise<number> {
  const config = loadConfig()
  if (config.DATABASE_URL === undefined) {
    log('The signing keys live in the portal\'s PostgreSQL: set DATABASE_URL')
    return 2
  }
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 2 })
  try {
    return await runCommand(argv[0], createSigningKeyStore({ pool, jwtSecret: await resolveJwtSecret(config), dataDir: config.DATA_DIR }), config.OAUTH_ACCESS_TOKEN_TTL_SECONDS, log)
  } finally {
    await pool.end()
  }
}

async function runCommand (command: string | undefined, store: SigningKeyStore, retainSeconds: number, log: (line: string) => void): Promise<number> {
  switch (command) {
    case 'list':
      await store.load() // creates the first key when there is none yet
      for (const key of await store.list()) {
        log(`${key.kid}  ${key.status.padEnd(7)}  created ${key.createdAt}${key.publishedUntil === undefined ? '' : `  published until ${key.publishedUntil}`}`)
      }
      return 0
    case 'rotate': {
      await store.load()
      const next = await store.rotate()
      log(`Added next key ${next.kid}. Restart the auth servers (every replica reads the same keys) so the JWKS publishes it; promote it once resource servers have refreshed their JWKS cache.`)
      return 0
    }
    case 'promote': {
      const current = await store.promote({ retainSeconds })
      log(`Key ${current.kid} now signs. Restart the auth servers.`)
      return 0
    }
    default:
      log('Usage: node auth-server/keys-cli.ts list|rotate|promote')
      return 2
  }
}

if (import.meta.main) {
  try {
    process.exitCode = await runKeysCli(process.argv.slice(2))
  } catch (error) {
    console.error((error as Error).message)
    process.exitCode = 1
  }
}
