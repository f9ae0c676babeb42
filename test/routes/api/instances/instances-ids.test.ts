import { createServer, type Socket } from 'node:net'
import t from 'tap'
import pg from 'pg'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { instanceRow, recordInstance } from '../../../support/instance-rows.ts'

// A Docker "engine" that accepts connections and never answers: the backend check hangs until its timeout.
const sockets: Socket[] = []
let connected: () => void = () => {}
const silentEngine = createServer((socket) => { sockets.push(socket); connected() })
await new Promise<void>((resolve) => silentEngine.listen(0, '127.0.0.1', resolve))
process.env.DOCKER_HOST = `tcp://127.0.0.1:${(silentEngine.address() as { port: number }).port}`
t.teardown(() => { for (const socket of sockets) socket.destroy(); silentEngine.close() })

const ROUTES = [
  (id: string) => ({ method: 'GET' as const, url: `/api/instances/${id}` }),
  (id: string) => ({ method: 'GET' as const, url: `/api/instances/${id}/status` }),
  (id: string) => ({ method: 'POST' as const, url: `/api/instances/${id}/start` }),
  (id: string) => ({ method: 'POST' as const, url: `/api/instances/${id}/stop` }),
  (id: string) => ({ method: 'POST' as const, url: `/api/instances/${id}/restart` }),
  (id: string) => ({ method: 'DELETE' as const, url: `/api/instances/${id}` })
]
const MALFORMED = ['abc', '1.5', '0', '-1', '99999999999999999999', '9007199254740992', '00000000-0000-4000-8000-000000000000']

t.test('instance ids are positive integers: a malformed one is a 400 in the envelope, after the 401 for no token', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  const before = await instanceRow(app, id)
  for (const route of ROUTES) {
    for (const malformed of MALFORMED) {
      const response = await app.inject({ ...route(malformed), headers: bearer(admin.token) })
      const { method, url } = route(malformed)
      t.equal(response.statusCode, 400, `${method} ${url}`)
      t.match(response.json(), { success: false, error: { code: 'VALIDATION_FAILED', message: /id/ }, request_id: String }, `${method} ${url}`)
      t.equal((await app.inject(route(malformed))).statusCode, 401, `${method} ${url} without a token`)
    }
  }
  t.same(await instanceRow(app, id), before, 'nothing changed')

  const listed = (await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })).json().instances
  t.same(listed.map((instance: { id: unknown }) => instance.id), [id], 'JSON integers in the list')
  const status = (await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })).json()
  t.equal(status.id, id, 'and in the status')
  const unknown = await app.inject({ method: 'GET', url: `/api/instances/${Number.MAX_SAFE_INTEGER}`, headers: bearer(admin.token) })
  t.equal(unknown.statusCode, 404, 'the largest id is well-formed, and unknown')
})

t.test('the backend check runs before the row lock: a slow backend never blocks the job\'s state moves', async (t) => {
  const { app, databaseUrl } = await build(t)
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  const reachedEngine = new Promise<void>((resolve) => { connected = resolve })
  const started = app.inject({ method: 'POST', url: `/api/instances/${id}/start`, headers: bearer(admin.token) })
  await reachedEngine

  // What a job does to move the state: lock the row. While the check hangs, nothing holds it.
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  await client.query('BEGIN')
  const locked = await client.query('SELECT id FROM instances WHERE id = $1 FOR UPDATE NOWAIT', [id]).then(() => true, (error: { code?: string }) => error.code)
  await client.query('ROLLBACK')
  t.equal(locked, true, 'the row could be locked at once while the backend was being asked')

  const response = await started
  t.equal(response.statusCode, 503, 'the engine never answered')
  t.equal(response.json().error.code, 'INSTANCE_BACKEND_UNAVAILABLE')
  t.equal((await instanceRow(app, id)).state, 'stopped', 'nothing changed')
})

t.test('a database size that cannot be read is logged (warn, with the instance id) and answered as null', async (t) => {
  const lines: string[] = []
  const { app } = await build(t, {
    env: { ERP_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' },
    logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line) } } }
  })
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id)
  const detail = await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })
  t.equal(detail.statusCode, 200)
  t.equal(detail.json().instance.database_size, null)
  const warnings = lines.map((line) => JSON.parse(line) as { level: number, instance_id?: number, err?: { message?: string }, msg: string })
    .filter((entry) => entry.instance_id === id)
  t.equal(warnings.length, 1, 'one line for the failed read')
  t.match(warnings[0], { level: 40, msg: /database size/i, err: { message: String } })
})
