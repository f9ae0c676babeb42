/**
 * The real app as the bench's child servers run it: on the already migrated bench database
 * (BENCH_CHILD_DATABASE_URL, pool of BENCH_POOL_MAX), no demo seed, listening on a free loopback
 * port. Logging is `npm start`'s own default (LOG_LEVEL unset: info, one access line per request,
 * JSON on stdout, which bench/child-process.ts pipes to a reader that drops it) unless BENCH_LOG_LEVEL names
 * another level (`silent`: the labelled second row set of `npm run bench`).
 * `settings` adds or overrides configuration for one scenario.
 */
import { MikroORM } from '@mikro-orm/postgresql'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app.ts'
import { loadConfig } from '../config/env.ts'
import { createOrmConfig } from '../mikro-orm.config.ts'

export interface BenchApp {
  app: FastifyInstance
  port: number
  close: () => Promise<void>
}

export async function startBenchApp (settings: Record<string, unknown> = {}): Promise<BenchApp> {
  const databaseUrl = process.env.BENCH_CHILD_DATABASE_URL
  if (databaseUrl === undefined) throw new Error('BENCH_CHILD_DATABASE_URL is not set')
  const poolMax = Number(process.env.BENCH_POOL_MAX ?? 10)
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    // Only this process signs and verifies the tokens: any long secret will do.
    JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-000000',
    ERP_CREDENTIALS_KEY: 'YmVuY2gtZXJwLWNyZWRlbnRpYWxzLWtleS0zMi1ieXRlcyE',
    // Listening on port 0, the port is not known yet; BASE_URL only names the token issuer, the
    // CORS origin and the OpenAPI server here.
    BASE_URL: 'http://127.0.0.1',
    ...(process.env.BENCH_LOG_LEVEL === undefined || process.env.BENCH_LOG_LEVEL === '' ? {} : { LOG_LEVEL: process.env.BENCH_LOG_LEVEL }),
    ...(process.env.BENCH_MCP_AUDIT_READS === undefined ? {} : { MCP_AUDIT_READS: process.env.BENCH_MCP_AUDIT_READS }),
    SEED_DEMO: 'false',
    DB_POOL_MAX: poolMax,
    ...settings
  })
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax }))
  const app = await buildApp({ config, orm })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  return {
    app,
    port: address.port,
    close: async () => {
      await app.close()
      await orm.close()
    }
  }
}
