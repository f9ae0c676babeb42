/**
 * `npm run check:prod`: the production install, as a deployment does it, in a temporary copy.
 *
 *   npm run build                          (here: dist/)
 *   copy package.json, package-lock.json, dist/ to a temporary folder
 *   npm ci --omit=dev                      (there: no devDependencies at all)
 *   npm run start:prod                     (node dist/server.js, DATABASE_URL = a new database)
 *
 * and waits for /health/ready to answer 200 and the auth server's metadata to come through the
 * portal, then stops the service with SIGTERM and expects a clean exit. A package that production
 * code loads but only devDependencies provide fails here as ERR_MODULE_NOT_FOUND.
 *
 * PostgreSQL: TEST_DATABASE_URL (any database on the server; a new one is created and dropped).
 */
import { spawn } from 'node:child_process'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import pg from 'pg'

const ROOT = resolve(import.meta.dirname, '..')
const READY_TIMEOUT_MS = 90_000

const adminUrl = process.env.TEST_DATABASE_URL
if (adminUrl === undefined || adminUrl === '') {
  console.error('check:prod needs TEST_DATABASE_URL (a PostgreSQL server it may create a database on)')
  process.exit(2)
}

function run (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code) => { code === 0 ? resolvePromise() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)) })
  })
}

async function freePort (): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => { typeof address === 'object' && address !== null ? resolvePromise(address.port) : reject(new Error('no port')) })
    })
  })
}

async function admin (sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

function withDatabase (url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

async function waitForOk (url: string, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  let last = 'no answer'
  while (Date.now() < deadline) {
    const exit = exited()
    if (exit !== undefined) throw new Error(`the service exited (${exit}) before ${url} answered 200`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
      if (response.status === 200) return
      last = `${response.status} ${await response.text()}`
    } catch (error) {
      last = error instanceof Error ? error.message : String(error)
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 500))
  }
  throw new Error(`${url} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s (last: ${last})`)
}

const started = Date.now()
const work = await mkdtemp(join(tmpdir(), 'erp-portal-prod-'))
const database = `erp_prod_check_${process.pid}`
let service: ReturnType<typeof spawn> | undefined
try {
  console.log('--- npm run build')
  await run('npm', ['run', 'build', '--silent'], ROOT)
  for (const entry of ['package.json', 'package-lock.json', 'dist']) await cp(join(ROOT, entry), join(work, entry), { recursive: true })

  console.log(`--- npm ci --omit=dev in ${work}`)
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], work)

  await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)}`)
  await admin(`CREATE DATABASE ${pg.escapeIdentifier(database)}`)
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  console.log(`--- npm run start:prod on ${baseUrl}`)
  // Only what a deployment sets: no test variables, no devDependencies on any path.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: withDatabase(adminUrl, database),
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    AUTH_PORT: String(await freePort()),
    DATA_DIR: join(work, 'data'),
    LOG_LEVEL: 'warn'
  }
  // Its own process group: the signals reach npm and the node it runs alike.
  service = spawn('npm', ['run', 'start:prod', '--silent'], { cwd: work, env, stdio: 'inherit', detached: true })
  let exit: string | undefined
  service.on('exit', (code, signal) => { exit = `code ${code}, signal ${signal}` })

  await waitForOk(`${baseUrl}/health/ready`, () => exit)
  console.log('--- /health/ready: 200')
  await waitForOk(`${baseUrl}/.well-known/oauth-authorization-server`, () => exit)
  console.log('--- auth server metadata through the portal: 200')

  const stopped = new Promise<void>((resolvePromise) => service?.on('exit', () => resolvePromise()))
  process.kill(-(service.pid ?? 0), 'SIGTERM')
  await stopped
  // npm itself dies of the signal; what matters is that the server let go of its port.
  const deadline = Date.now() + 15_000
  while (await fetch(`${baseUrl}/health/live`, { signal: AbortSignal.timeout(2000) }).then(() => true, () => false)) {
    if (Date.now() > deadline) throw new Error(`the service still answers 15 s after SIGTERM (npm: ${exit})`)
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 250))
  }
  service = undefined
  console.log(`--- production install starts and stops cleanly (${Math.round((Date.now() - started) / 1000)} s)`)
} finally {
  if (service?.pid !== undefined && service.exitCode === null) process.kill(-service.pid, 'SIGKILL')
  await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`).catch(() => {})
  await rm(work, { recursive: true, force: true })
}
