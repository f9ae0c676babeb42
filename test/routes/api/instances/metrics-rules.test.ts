/**
 * GET /metrics without a backend that answers: a Docker "engine" that accepts connections and
 * never replies. The route must not hang: the last sample is served stale, or 503 without one.
 */
import { createServer, type Socket } from 'node:net'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { tenantSnapshot } from '../../../support/snapshot.ts'

const sockets: Socket[] = []
const silentEngine = createServer((socket) => { sockets.push(socket) })
await new Promise<void>((resolve) => silentEngine.listen(0, '127.0.0.1', resolve))
process.env.DOCKER_HOST = `tcp://127.0.0.1:${(silentEngine.address() as { port: number }).port}`
t.teardown(() => { for (const socket of sockets) socket.destroy(); silentEngine.close() })

const { app } = await build(t, { env: { INSTANCE_BACKENDS: 'docker', METRICS_INTERVAL_SECONDS: 60 } })
const admin = await signup(app)
const get = (id: number, token = admin.token) => app.inject({ method: 'GET', url: `/api/instances/${id}/metrics`, headers: bearer(token) })

async function addSample (app: FastifyInstance, tenantId: string, id: number, ageSeconds: number, values = { cpu: 0.4, memory: 512, database: 12.5, volume: 3 }): Promise<void> {
  await app.sql({
    text: `INSERT INTO metric_samples (tenant_id, instance_id, sampled_at, cpu_cores, memory_mb, database_mb, volume_mb)
      VALUES ($1, $2, now() - make_interval(secs => $3), $4, $5, $6, $7)`,
    values: [tenantId, id, ageSeconds, values.cpu, values.memory, values.database, values.volume]
  })
}

t.test('no sample and a backend that does not answer: 503 METRICS_UNAVAILABLE in the envelope, nothing recorded', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  const response = await get(id)
  t.equal(response.statusCode, 503)
  t.match(response.json(), { success: false, error: { code: 'METRICS_UNAVAILABLE', message: /did not answer|did not report usage/, details: { backend: 'docker' } }, request_id: String })
  const [row] = await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM metric_samples WHERE instance_id = $1', values: [id] })
  t.equal(row?.n, 0)
})

t.test('an old sample and a backend that does not answer: that sample, stale', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  await addSample(app, admin.user.tenant_id, id, 600)
  const response = await get(id)
  t.equal(response.statusCode, 200, response.body)
  const { metrics } = response.json()
  t.match(metrics, {
    instance_id: id, state: 'running', source: 'sample', stale: true,
    cpu: { used_cores: 0.4, limit_cores: 1, percent_of_limit: 40 },
    memory: { used_mb: 512, limit_mb: 1024, percent_of_limit: 50 },
    storage: { database_mb: 12.5, volume_mb: 3, volume_capacity_mb: null, limit_mb: 10240 }
  })
  t.ok(Date.now() - Date.parse(metrics.sampled_at) >= 599_000, 'sampled_at is the old sample\'s')
})

t.test('a sample younger than the interval is served without asking the backend', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  await addSample(app, admin.user.tenant_id, id, 5, { cpu: 0.25, memory: 300, database: 8, volume: 1 })
  const connections = sockets.length
  const { metrics } = (await get(id)).json()
  t.match(metrics, { source: 'sample', stale: false, cpu: { used_cores: 0.25, percent_of_limit: 25 }, memory: { used_mb: 300 } })
  t.equal(sockets.length, connections, 'the engine was not called')
})

t.test('a stopped instance uses no CPU or memory, whatever its last sample said, and answers without the engine', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  await addSample(app, admin.user.tenant_id, id, 5)
  const fresh = (await get(id)).json().metrics
  t.match(fresh, { state: 'stopped', source: 'sample', cpu: { used_cores: 0, percent_of_limit: 0 }, memory: { used_mb: 0 }, storage: { database_mb: 12.5, volume_mb: 3 } })

  const other = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  const response = await get(other)
  t.equal(response.statusCode, 200, 'not a 503: nothing runs, so there is nothing to wait for')
  t.match(response.json().metrics, { state: 'stopped', source: 'live', stale: false, cpu: { used_cores: 0 }, memory: { used_mb: 0 }, storage: { database_mb: null, volume_mb: null } })
})

t.test('another company\'s instance is 404 for both metrics routes, and nothing changes', async (t) => {
  const victim = await signup(app)
  const theirs = await recordInstance(app, victim.user.tenant_id, { state: 'running' })
  await addSample(app, victim.user.tenant_id, theirs, 5)
  const before = await tenantSnapshot(app, victim.user.tenant_id)
  for (const url of [`/api/instances/${theirs}/metrics`, `/api/instances/${theirs}/metrics/history`]) {
    const response = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
    t.equal(response.statusCode, 404, url)
    t.equal(response.json().error.code, 'INSTANCE_NOT_FOUND', url)
  }
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), before)
  t.equal((await get(theirs, victim.token)).statusCode, 200, 'its own company reads it')
})

t.test('no token: 401; a malformed id: 400', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}/metrics` })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/api/instances/abc/metrics', headers: bearer(admin.token) })).statusCode, 400)
})
