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
  const [port, pgPort] = [await freePort(), await freePort()]
  const env = { PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) }

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

  t.equal(await stop(first), 0, 'Ctrl-C exits cleanly')
  t.equal(await pgAnswers(pgPort), false, 'embedded PostgreSQL stopped with it')

  const second = startServer(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, second)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.notMatch(second.output(), password!, 'the password is not printed again')
  t.equal((await login(port, email!, password!)).status, 200, 'data survived the restart')
  t.equal(await stop(second, 'SIGTERM'), 0)
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

t.test('invalid configuration stops start-up with a message naming the variable', async (t) => {
  const running = startServer({ PORT: 'not-a-port' })
  t.equal(await running.exited, 1)
  t.match(running.output(), /Invalid configuration: PORT must be integer/)
})
