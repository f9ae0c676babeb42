import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { MikroORM } from '@mikro-orm/postgresql'
import { buildApp } from '../../app.ts'
import { loadConfig, type AppConfig } from '../../config/env.ts'
import { createOrmConfig } from '../../mikro-orm.config.ts'
import { createTestDatabase } from './database.ts'

interface TestContext {
  teardown: (fn: () => unknown) => void
}

export interface TestApp {
  app: FastifyInstance
  orm: MikroORM
  config: AppConfig
  databaseUrl: string
}

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0001'
/** 32 bytes, base64url: the key of the test instances' database passwords. */
export const TEST_ERP_CREDENTIALS_KEY = Buffer.from('test-erp-credentials-key-32bytes').toString('base64url')

/** Files a test app writes (mail without SMTP, secrets) go here, never into the repository's ./data. */
const TEST_DATA_DIR = join(tmpdir(), `erp-portal-test-data-${process.pid}`)
process.once('exit', () => rmSync(TEST_DATA_DIR, { recursive: true, force: true }))

export function testConfig (databaseUrl: string, overrides: Record<string, unknown> = {}): AppConfig {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: TEST_DATA_DIR,
    JWT_SECRET: TEST_JWT_SECRET,
    ERP_CREDENTIALS_KEY: TEST_ERP_CREDENTIALS_KEY,
    BASE_URL: 'http://portal.test',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    PAYMENT_PROVIDERS: 'sandbox',
    ...overrides
  })
}

/**
 * The real app on a database of its own, exercised with app.inject().
 * `routes` may add test-only routes before the app is sealed.
 */
export async function build (t: TestContext, options: {
  env?: Record<string, unknown>
  databaseUrl?: string
  routes?: (app: FastifyInstance) => void
  /** Default: no logging. */
  logger?: FastifyServerOptions['logger']
} = {}): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? await createTestDatabase(t)
  const config = testConfig(databaseUrl, options.env)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 5 }))
  const app = await buildApp({ config, orm, logger: options.logger ?? false })
  options.routes?.(app)
  await app.ready()
  t.teardown(async () => {
    await app.close()
    await orm.close()
  })
  return { app, orm, config, databaseUrl }
}
