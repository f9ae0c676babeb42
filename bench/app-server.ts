/**
 * Ours: the real app (buildApp) on the already migrated bench database, with
 * logging silenced and no demo seed.
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL and BENCH_POOL_MAX; it
 * reports its port. The bearer token comes from the real signup route, called
 * by the parent over HTTP.
 */
import { MikroORM } from '@mikro-orm/postgresql'
import { buildApp } from '../app.ts'
import { loadConfig } from '../config/env.ts'
import { createOrmConfig } from '../mikro-orm.config.ts'
import { serveUntilStopped } from './child-process.ts'

const databaseUrl = process.env.BENCH_CHILD_DATABASE_URL
if (databaseUrl === undefined) throw new Error('BENCH_CHILD_DATABASE_URL is not set')
const poolMax = Number(process.env.BENCH_POOL_MAX ?? 10)

const config = loadConfig({
  DATABASE_URL: databaseUrl,
  // Only this process signs and verifies the tokens: any long secret will do.
  JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-000000',
  // No instance is provisioned here; the instances plugin needs the key all the same.
  ERP_CREDENTIALS_KEY: 'YmVuY2gtZXJwLWNyZWRlbnRpYWxzLWtleS0zMi1ieXRlcyE',
  // Listening on port 0, the port is not known yet; BASE_URL only names the
  // token issuer, the CORS origin and the OpenAPI server here.
  BASE_URL: 'http://127.0.0.1',
  LOG_LEVEL: 'silent',
  SEED_DEMO: 'false',
  DB_POOL_MAX: poolMax,
  // The bench's auth server (bench/oauth-ours-server.ts, issuer http://127.0.0.1): /api/mcp fetches its JWKS.
  AUTH_PORT: Number(process.env.BENCH_AUTH_PORT ?? 3001),
  JOB_WORKERS: false,
  // The metrics scenario's sample, taken when the run starts, stays recent until it ends.
  METRICS_INTERVAL_SECONDS: 3600
})

const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax }))
const app = await buildApp({ config, orm })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
if (address === null || typeof address === 'string') throw new Error('no TCP address')

serveUntilStopped({ port: address.port }, async () => {
  await app.close()
  await orm.close()
})
