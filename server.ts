import { resolve } from 'node:path'
import { exitOnConfigError, exitWith, loadConfigOrExit } from './config/startup.ts'
import type { AuthServerProcess } from './lib/auth-server-process.ts'
import { freePort, portIsFree, takenPortProblem } from './lib/ports.ts'
import { markStopping, waitForPreviousStop } from './lib/previous-start.ts'
import { provisioningProblems } from './provisioning/config-problems.ts'
import { SHUTDOWN_GRACE_MS } from './lib/shutdown-budget.ts'

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(`Node ${process.versions.node} is too old: this service needs Node 22.19 or newer (24 LTS recommended). ` +
    '`npm install` provides one in node_modules/.bin; run the service with `npm start`.')
  process.exit(1)
}

// Every setting is checked here, before the embedded PostgreSQL or anything else
// listens, and before the rest of the service is loaded: a mistake is reported at once.
const config = loadConfigOrExit({ checks: [provisioningProblems], warnings: true })
// Started again right after Ctrl-C: the previous process still holds the port and its embedded database.
if (!(await waitForPreviousStop(config.DATA_DIR, (line) => console.error(line)))) {
  console.error('The previous start of this service is still running after a minute: stop it first (or use another DATA_DIR).')
  process.exit(1)
}
if (!(await portIsFree(config.PORT, config.HOST.replace(/^\[(.*)\]$/, '$1')).catch(() => true))) { // an odd HOST: listen() will say
  exitWith([{ variable: 'PORT', value: String(config.PORT), reason: 'another process listens on that port', allowed: 'a free port', example: String(await freePort()) }])
}
// A port set explicitly must be free; unset, the auth server child takes any free port and tells us which.
if (config.AUTH_SERVER_PROCESS && config.AUTH_PORT !== undefined && !(await portIsFree(config.AUTH_PORT))) {
  exitWith([await takenPortProblem('AUTH_PORT', config.AUTH_PORT)])
}

const [
  { default: closeWithGrace }, { MikroORM }, { createOrmConfig }, { runMigrations }, { resolveDatabase },
  { seedReferenceData }, { resolveErpCredentialsKey, resolveJwtSecret }, { buildApp }, { startAuthServerProcess }, { dockerContainerAccess }
] = await Promise.all([
  import('close-with-grace'), import('@mikro-orm/postgresql'), import('./mikro-orm.config.ts'), import('./database/migrate.ts'), import('./database/resolve.ts'),
  import('./database/seed.ts'), import('./lib/secrets.ts'), import('./app.ts'), import('./lib/auth-server-process.ts'), import('./database/container-access.ts')
])

// The embedded PostgreSQL serves the Docker instances' databases too: it also listens where their containers reach this machine.
const servesContainers = config.DATABASE_URL === undefined && config.ERP_DATABASE_URL === undefined && config.instanceBackends.includes('docker')
const containerAccess = servesContainers ? await dockerContainerAccess({ network: config.DOCKER_NETWORK }) : undefined
const database = await exitOnConfigError(resolveDatabase(config, undefined, containerAccess))
const orm = await MikroORM.init(createOrmConfig({ databaseUrl: database.url, poolMax: config.DB_POOL_MAX }))
const applied = await runMigrations(orm, database.url)
const jwtSecret = await resolveJwtSecret(config)
const erpCredentialsKey = await resolveErpCredentialsKey(config, {
  jwtSecret,
  hasInstances: async () => (await orm.em.execute<Array<{ found: boolean }>>('SELECT EXISTS (SELECT 1 FROM instances) AS found'))[0]?.found === true
})
if (erpCredentialsKey.origin === 'adopted') {
  console.error(`ERP_CREDENTIALS_KEY was unset: the instances' database passwords were derived from JWT_SECRET, so that key was saved to ${erpCredentialsKey.file}; ` +
    'their passwords stay the same, and no longer change with JWT_SECRET. If DATA_DIR is not kept across restarts, set ERP_CREDENTIALS_KEY to the file\'s content.')
} else if (erpCredentialsKey.origin === 'generated' && config.JWT_SECRET !== undefined) {
  // Secrets managed in the environment suggest replicas or a DATA_DIR that is not kept: each would make its own key.
  console.error(`Configuration warning: JWT_SECRET is set but ERP_CREDENTIALS_KEY is not: generated ${erpCredentialsKey.file}. ` +
    'Replicas, and a DATA_DIR that is not kept, need ERP_CREDENTIALS_KEY set as JWT_SECRET is.')
}
const seed = await seedReferenceData(orm, config)
let authServer: AuthServerProcess | undefined
const app = await buildApp({
  config: { ...config, JWT_SECRET: jwtSecret, ERP_CREDENTIALS_KEY: erpCredentialsKey.value },
  orm,
  // The proxy, the MCP endpoint and readiness follow the child to whatever port it reports.
  ...(config.AUTH_SERVER_PROCESS ? { authServer: { url: () => authServer?.url() } } : {})
})
if (config.AUTH_SERVER_PROCESS) {
  authServer = startAuthServerProcess({
    env: {
      DATABASE_URL: database.url, JWT_SECRET: jwtSecret, BASE_URL: config.BASE_URL, DATA_DIR: config.DATA_DIR,
      // Stopped by this process once it has drained: no delay of its own.
      SHUTDOWN_DELAY_SECONDS: '0',
      ...(config.AUTH_PORT === undefined ? {} : { AUTH_PORT: String(config.AUTH_PORT) })
    },
    log: (message) => app.log.warn(message)
  })
}

// Graceful drain: readiness turns false at once and the process keeps serving for SHUTDOWN_DELAY_SECONDS, so that
// load balancers stop sending before it stops accepting; then in-flight requests, the job workers and the rest get
// their budgets (lib/shutdown-budget.ts), and only past all of it is the exit forced. Ctrl-C (SIGINT) has no load
// balancer to wait for.
closeWithGrace({ delay: config.SHUTDOWN_DELAY_SECONDS * 1000 + SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
  if (err !== undefined) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal, delaySeconds: config.SHUTDOWN_DELAY_SECONDS }, 'shutting down')
  markStopping(config.DATA_DIR)
  app.drain.start()
  if (signal === 'SIGTERM' && config.SHUTDOWN_DELAY_SECONDS > 0) {
    await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_SECONDS * 1000))
  }
  await app.close() // stops accepting and the job workers, lets in-flight requests finish
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
// What an instance will need on each enabled backend (the engine, the image, a database reachable from a container),
// checked now rather than at the first instance: one line per problem, naming the setting that fixes it.
app.instances.backends.startupProblems().then(
  (problems) => { for (const problem of problems) console.error(`Not ready for instances: ${problem}`) },
  (error: Error) => { app.log.warn({ err: error }, 'the start-up check of the instance backends failed') }
)
authServer?.listening.then(
  (url) => { console.log(`  Auth server:   listening on ${url}, behind ${config.BASE_URL}\n`) },
  (error: Error) => { app.log.error({ err: error }, 'the auth server did not start') }
)
