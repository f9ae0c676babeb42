import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import t from 'tap'
import { createTestDatabase } from './support/database.ts'
import { freePort, startServer, waitForReady, type Running } from './support/process.ts'

const stop = async (running: Running, signal: NodeJS.Signals = 'SIGINT') => {
  running.child.kill(signal)
  return running.exited
}

const login = (port: number, email: string, password: string) => fetch(`http://127.0.0.1:${port}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ login: email, password })
})

const pgAnswers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve(true) })
  socket.once('error', () => resolve(false))
})

t.test('with no configuration: embedded PostgreSQL, migrations, demo login, clean Ctrl-C, data kept', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-start-'))
  await chmod(dataDir, 0o755) // as a fresh ./data would be; mkdtemp makes 0700
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [port, pgPort, authPort] = [await freePort(), await freePort(), await freePort()]
  const env = { PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), AUTH_SERVER_PROCESS: 'true', AUTH_PORT: String(authPort) }

  const first = startServer(env)
  t.teardown(() => { first.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, first)
  await new Promise((resolve) => setTimeout(resolve, 200))
  const banner = first.output()
  t.match(banner, `ERP portal is running at http://localhost:${port}`)
  t.match(banner, `API docs:      http://localhost:${port}/docs`)
  const [, email, password] = /Demo login:\s+(\S+) \/ (\S+)/.exec(banner) ?? []
  t.equal(email, 'admin@demo.example.com')
  t.ok(password !== undefined && password.length >= 10, 'a generated demo password is printed on first start')
  t.equal((await login(port, email!, password!)).status, 200, 'and it works')
  const metadata = await waitForMetadata(port)
  t.equal(metadata.issuer, `http://localhost:${port}`, 'the authorization server runs too, behind the portal\'s origin')
  t.equal(metadata.token_endpoint, `http://localhost:${port}/oauth/token`)

  t.equal(await stop(first), 0, 'Ctrl-C exits cleanly')
  t.equal(await pgAnswers(pgPort), false, 'embedded PostgreSQL stopped with it')
  t.equal(await pgAnswers(authPort), false, 'and so did the authorization server')

  const second = startServer(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, second)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.notMatch(second.output(), password!, 'the password is not printed again')
  t.equal((await login(port, email!, password!)).status, 200, 'data survived the restart')
  t.equal(await stop(second, 'SIGTERM'), 0)
})

/** The authorization server comes up a moment after the portal: poll its metadata through the portal. */
async function waitForMetadata (port: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const response = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`).catch(() => undefined)
    if (response?.status === 200) return await response.json() as Record<string, unknown>
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error('the authorization server did not answer through the portal')
}

t.test('a portal killed with SIGKILL takes its authorization server with it (the port is freed)', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const [port, authPort] = [await freePort(), await freePort()]
  const portal = startServer({ PORT: String(port), DATABASE_URL: databaseUrl, JWT_SECRET: 'x'.repeat(40), AUTH_SERVER_PROCESS: 'true', AUTH_PORT: String(authPort) })
  t.teardown(() => { portal.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, portal)
  await waitForMetadata(port)
  t.equal(await pgAnswers(authPort), true, 'the auth server listens on AUTH_PORT')
  portal.child.kill('SIGKILL')
  await portal.exited
  const deadline = Date.now() + 15_000
  while (await pgAnswers(authPort) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await pgAnswers(authPort), false, 'the auth server exited when its portal died')
})

t.test('DATABASE_URL: two replicas starting together on an empty database both come up', async (t) => {
  const databaseUrl = await createTestDatabase(t, { empty: true })
  const ports = [await freePort(), await freePort()]
  const replicas = ports.map((port) => startServer({ PORT: String(port), DATABASE_URL: databaseUrl, JWT_SECRET: 'x'.repeat(40), DEMO_ADMIN_PASSWORD: 'demo password 123' }))
  t.teardown(() => { for (const r of replicas) r.child.kill('SIGKILL') })
  await Promise.all(ports.map((port, i) => waitForReady(`http://127.0.0.1:${port}/health/ready`, replicas[i]!)))
  for (const port of ports) {
    t.equal((await login(port, 'admin@demo.example.com', 'demo password 123')).status, 200, `replica on ${port} serves the seeded admin`)
  }
  for (const replica of replicas) t.equal(await stop(replica), 0)
})
