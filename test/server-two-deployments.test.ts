/**
 * Two deployments of `node server.ts` on one machine (the usual way to try a
 * branch beside a running copy): each one's auth server child takes a free
 * port of its own, the portal proxies only to its own child, readiness says so,
 * and a port set explicitly that is taken stops the start with one line.
 */
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import t, { type Test } from 'tap'
import { createTestDatabase } from './support/database.ts'
import { freePort, startServer, waitForReady, type Running } from './support/process.ts'

// Real starts of the service, several per test: on a busy machine they take a while.
t.setTimeout(1_200_000)
const READY_MS = 300_000

interface Deployment { port: number, baseUrl: string, running: Running }

async function deploy (t: Test, env: Record<string, string> = {}): Promise<Deployment> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const running = startServer({
    PORT: String(port), BASE_URL: baseUrl, DATABASE_URL: await createTestDatabase(t), JWT_SECRET: 'x'.repeat(40), AUTH_SERVER_PROCESS: 'true', ...env
  })
  t.teardown(() => { running.child.kill('SIGKILL') })
  return { port, baseUrl, running }
}

const ready = async (deployment: Deployment) => (await fetch(`${deployment.baseUrl}/health/ready`)).status
const metadata = (deployment: Deployment) => fetch(`${deployment.baseUrl}/.well-known/oauth-authorization-server`)

/** The auth server's address, from the portal's start-up banner. */
async function authServerUrl (deployment: Deployment): Promise<string> {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const found = /Auth server:\s+listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(deployment.running.output())?.[1]
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no auth server line in:\n${deployment.running.output()}`)
}

/** The pid of the portal's auth server child (Linux: /proc lists a task's children). */
function childPid (deployment: Deployment): number {
  const pid = deployment.running.child.pid!
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).map(Number)
  if (children.length !== 1) throw new Error(`expected one child of ${pid}, found ${children.join(', ')}`)
  return children[0]!
}

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`timed out waiting until ${what}`)
}

/** Holds a port on 127.0.0.1, as another program would. */
async function occupy (t: Test, port = 0): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', resolve) })
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as net.AddressInfo).port
}

t.test('two deployments with AUTH_PORT unset on one machine', async (t) => {
  const [a, b] = [await deploy(t), await deploy(t)]
  await Promise.all([a, b].map((d) => waitForReady(`${d.baseUrl}/health/ready`, d.running, READY_MS)))

  await t.test('each is ready and proxies to its own auth server', async (t) => {
    t.not(await authServerUrl(a), await authServerUrl(b), 'two auth servers, on two ports')
    for (const d of [a, b]) {
      const response = await metadata(d)
      t.equal(response.status, 200)
      const document = await response.json() as Record<string, unknown>
      t.equal(document.issuer, d.baseUrl, `${d.baseUrl}: the issuer is its own BASE_URL`)
      t.equal(document.token_endpoint, `${d.baseUrl}/oauth/token`)
    }
  })

  await t.test('a portal whose AUTH_PORT is another deployment\'s auth server never forwards to it', async (t) => {
    const foreignPort = new URL((await authServerUrls(a)).at(-1)!).port
    // C runs no child and expects its auth server at AUTH_PORT: the one found there has A's issuer.
    const c = await deploy(t, { AUTH_SERVER_PROCESS: 'false', AUTH_PORT: foreignPort })
    await waitForReady(`${c.baseUrl}/health/ready`, c.running, READY_MS)
    const response = await metadata(c)
    t.equal(response.status, 502, 'the metadata is not forwarded')
    const body = await response.json() as { error: { code: string, message: string } }
    t.equal(body.error.code, 'AUTH_SERVER_UNAVAILABLE')
    t.match(body.error.message, 'belongs to another deployment')
    const token = await fetch(`${c.baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    t.equal(token.status, 502, 'nor is a token request')
    t.equal((await metadata(a)).status, 200, 'A still serves its own')
    c.running.child.kill('SIGINT')
    await c.running.exited
  })

  await t.test('readiness is false while the auth server child does not answer, and true again when it does', async (t) => {
    const pid = childPid(a)
    process.kill(pid, 'SIGSTOP')
    t.teardown(() => { try { process.kill(pid, 'SIGCONT') } catch {} })
    const response = await fetch(`${a.baseUrl}/health/ready`)
    t.equal(response.status, 503, 'a frozen child: not ready')
    t.equal((await response.json() as { error: { code: string } }).error.code, 'NOT_READY')
    t.equal(await ready(b), 200, 'B is unaffected')
    process.kill(pid, 'SIGCONT')
    await until('ready again', async () => await ready(a) === 200)
    t.pass('ready again once the child answers')
  })

  await t.test('a dead child is restarted on a free port and the portal follows it', async (t) => {
    process.kill(childPid(a), 'SIGKILL')
    await until('A has a new auth server', async () => (await authServerUrls(a)).length === 2)
    await waitForReady(`${a.baseUrl}/health/ready`, a.running, READY_MS)
    t.equal((await (await metadata(a)).json() as { issuer: string }).issuer, a.baseUrl, 'after a restart, still its own')
    t.equal((await (await metadata(b)).json() as { issuer: string }).issuer, b.baseUrl, 'B is unaffected')
  })
})

/** The address of each start of the auth server child so far (its own start-up line). */
async function authServerUrls (deployment: Deployment): Promise<string[]> {
  return [...deployment.running.output().matchAll(/auth server listening on (\S+) \(issuer/g)].map((match) => match[1]!)
}

t.test('an explicit AUTH_PORT that is taken stops the start before anything else: one line, exit 1', async (t) => {
  const taken = await occupy(t)
  const dataDir = join(tmpdir(), `erp-portal-auth-port-${process.pid}`)
  const running = startServer({ PORT: String(await freePort()), DATA_DIR: dataDir, AUTH_SERVER_PROCESS: 'true', AUTH_PORT: String(taken) })
  t.equal(await running.exited, 1)
  const lines = running.output().trim().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], new RegExp(`^Invalid configuration: AUTH_PORT="${taken}" \\(another process listens on that port\\); allowed: a free port, or unset AUTH_PORT and a free one is chosen; example: AUTH_PORT=\\d+$`))
  t.equal(existsSync(dataDir), false, 'no embedded PostgreSQL was started (DATA_DIR untouched)')
})

t.test('embedded PostgreSQL: an explicit taken port is one line; unset, a free one is chosen and kept in DATA_DIR', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-pg-port-'))
  await chmod(dataDir, 0o755) // as a fresh ./data would be (PostgreSQL runs as another user under root)
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const env = { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, AUTH_SERVER_PROCESS: 'false' }

  const taken = await occupy(t)
  const refused = startServer({ ...env, EMBEDDED_PG_PORT: String(taken) })
  t.equal(await refused.exited, 1)
  const lines = refused.output().trim().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], new RegExp(`^Invalid configuration: EMBEDDED_PG_PORT="${taken}" \\(another process listens on that port\\); allowed: .+; example: EMBEDDED_PG_PORT=\\d+$`))

  // The default port is held (by another deployment, say): a free one is taken instead.
  await occupy(t, 54329).catch(() => {}) // already held by something else: just as good
  const first = startServer(env)
  t.teardown(() => { first.child.kill('SIGKILL') })
  await waitForReady(`${env.BASE_URL}/health/ready`, first, READY_MS)
  const chosen = Number((await readFile(join(dataDir, 'postgres-port'), 'utf8')).trim())
  t.not(chosen, 54329, 'not the default port')
  t.ok(await answers(chosen), 'PostgreSQL listens on the port kept in DATA_DIR/postgres-port')
  first.child.kill('SIGINT')
  t.equal(await first.exited, 0)

  const second = startServer(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  await waitForReady(`${env.BASE_URL}/health/ready`, second, READY_MS)
  t.ok(await answers(chosen), 'the next start uses the same port')
  second.child.kill('SIGINT')
  t.equal(await second.exited, 0)
})

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve(true) })
  socket.once('error', () => resolve(false))
})
