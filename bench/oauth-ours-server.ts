/**
 * Token-endpoint "ours": the real auth server's code path, as auth-server/server.ts
 * runs it (createProvider with the PostgreSQL adapter, signing keys from the
 * key store, accounts from the portal's users table), on the migrated bench
 * database, in a bench child process so that codes can be minted through its
 * provider (the `mint` call, see bench/oauth-codes.ts).
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL and BENCH_POOL_MAX;
 * reports its port. The client is registered by the parent over HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createFindAccount } from '../auth-server/account.ts'
import { createSigningKeyStore } from '../auth-server/keys.ts'
import { createProvider } from '../auth-server/provider.ts'
import { loadConfig } from '../config/env.ts'
import { serveUntilStopped } from './child-process.ts'
import { ISSUER, mintCodes, type MintRequest } from './oauth-codes.ts'

const databaseUrl = process.env.BENCH_CHILD_DATABASE_URL
if (databaseUrl === undefined) throw new Error('BENCH_CHILD_DATABASE_URL is not set')

const dataDir = await mkdtemp(join(tmpdir(), 'erp-bench-auth-'))
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  BASE_URL: ISSUER,
  DATA_DIR: dataDir,
  // Only this process signs (and seals its keys): any long secret will do.
  JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-000000',
  DB_POOL_MAX: Number(process.env.BENCH_POOL_MAX ?? 10)
})
const pool = new pg.Pool({ connectionString: databaseUrl, max: config.DB_POOL_MAX })
pool.on('error', (error) => console.error(`bench auth server: database connection lost: ${error.message}`))
const keys = await createSigningKeyStore({ pool, jwtSecret: config.JWT_SECRET as string }).load()
const provider = createProvider({ config, pool, keys, findAccount: createFindAccount(pool) })
provider.on('server_error', (_ctx: unknown, error: Error) => console.error(`bench auth server error: ${error.stack ?? error.message}`))

const server = createServer(provider.callback())
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))

serveUntilStopped({ port: (server.address() as AddressInfo).port }, async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await pool.end()
  await rm(dataDir, { recursive: true, force: true })
}, {
  mint: (request: MintRequest) => mintCodes(provider, request)
})
