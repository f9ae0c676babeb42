import { resolve } from 'node:path'
import closeWithGrace from 'close-with-grace'
import { MikroORM } from '@mikro-orm/postgresql'
import { ConfigError, loadConfig } from './config/env.ts'
import { createOrmConfig } from './mikro-orm.config.ts'
import { runMigrations } from './database/migrate.ts'
import { resolveDatabase } from './database/resolve.ts'
import { seedReferenceData } from './database/seed.ts'
import { resolveJwtSecret } from './lib/secrets.ts'
import { buildApp } from './app.ts'
import { startAuthServerProcess, type AuthServerProcess } from './lib/auth-server-process.ts'

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`Node ${process.versions.node} is too old: this service needs Node 22.19 or newer (24 LTS recommended). ` +
    '`npm install` provides one in node_modules/.bin; run the service with `npm start`.')
  process.exit(1)
}

let config
try {
  config = loadConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message)
    process.exit(1)
  }
  throw error
}

const database = await resolveDatabase(config)
const orm = await MikroORM.init(createOrmConfig({ databaseUrl: database.url, poolMax: config.DB_POOL_MAX }))
const applied = await runMigrations(orm, database.url)
const jwtSecret = await resolveJwtSecret(config)
const seed = await seedReferenceData(orm, config)
const app = await buildApp({ config: { ...config, JWT_SECRET: jwtSecret }, orm })
const authServer: AuthServerProcess | undefined = config.AUTH_SERVER_PROCESS
  ? startAuthServerProcess({
    env: { DATABASE_URL: database.url, JWT_SECRET: jwtSecret, BASE_URL: config.BASE_URL, AUTH_PORT: String(config.AUTH_PORT), DATA_DIR: config.DATA_DIR },
    log: (message) => app.log.warn(message)
  })
  : undefined

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err !== undefined) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
  await app.close() // stops accepting, lets in-flight requests finish
  await authServer?.stop()
  await orm.close()
  await database.stop()
})

await app.listen({ port: config.PORT, host: config.HOST })

const lines = [
  '',
  `  ERP portal is running at ${config.BASE_URL}`,
  `  API docs:      ${config.BASE_URL}/docs  (OpenAPI: ${config.BASE_URL}/api/openapi.json)`,
  `  Agents (MCP):  OAuth metadata at ${config.BASE_URL}/.well-known/oauth-authorization-server` +
    (authServer === undefined ? ' (AUTH_SERVER_PROCESS=false: run `npm run auth` on its own)' : ' (auth server starting)'),
  `  Database:      ${database.embedded ? `embedded PostgreSQL, data in ${resolve(config.DATA_DIR, 'postgres')}` : 'DATABASE_URL'}` +
    (applied.length > 0 ? ` (applied ${applied.length} migration${applied.length > 1 ? 's' : ''})` : '')
]
if (seed.demoAdmin !== undefined) {
  lines.push(`  Demo login:    ${seed.demoAdmin.email} / ${seed.demoAdmin.password}` +
    (seed.demoAdmin.generated ? '  (generated; shown only on this first start)' : ''))
} else if (config.SEED_DEMO) {
  lines.push(`  Demo login:    ${config.DEMO_ADMIN_EMAIL} (password shown on first start, or DEMO_ADMIN_PASSWORD)`)
}
console.log(lines.join('\n') + '\n')
authServer?.listening.then(
  (url) => { console.log(`  Auth server:   listening on ${url}, behind ${config.BASE_URL}\n`) },
  (error: Error) => { app.log.error({ err: error }, 'the auth server did not start') }
)
