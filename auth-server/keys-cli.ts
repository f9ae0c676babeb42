/**
 * Signing-key rotation for the auth server:
 *
 *   node auth-server/keys-cli.ts list
 *   node auth-server/keys-cli.ts rotate    # add a "next" key: published in the JWKS, not signing
 *   node auth-server/keys-cli.ts promote   # the next key signs; the old one stays published
 *                                          # for OAUTH_ACCESS_TOKEN_TTL_SECONDS, then disappears
 *
 * Running auth servers read the keys at start: restart them after each step.
 */
import { loadConfig } from '../config/env.ts'
import { resolveJwtSecret } from '../lib/secrets.ts'
import { createSigningKeyStore } from './keys.ts'

export async function runKeysCli (argv: string[], log: (line: string) => void = console.log): Promise<number> {
  const config = loadConfig()
  const store = createSigningKeyStore({ dataDir: config.DATA_DIR, jwtSecret: await resolveJwtSecret(config) })
  const command = argv[0]
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
      log(`Added next key ${next.kid}. Restart the auth servers so the JWKS publishes it; promote it once resource servers have refreshed their JWKS cache.`)
      return 0
    }
    case 'promote': {
      const current = await store.promote({ retainSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS })
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
