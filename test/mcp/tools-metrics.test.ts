import t from 'tap'
import { signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

// No backend is configured here: every answer below comes from stored samples (or says there is none).
const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Metrics agent')

async function addSample (tenantId: string, id: number, ageSeconds: number): Promise<void> {
  await app.sql({
    text: `INSERT INTO metric_samples (tenant_id, instance_id, sampled_at, cpu_cores, memory_mb, database_mb, volume_mb)
      VALUES ($1, $2, now() - make_interval(secs => $3), 0.5, 768, 20.2, 4)`,
    values: [tenantId, id, ageSeconds]
  })
}

t.test('get_instance_metrics answers what GET /metrics answers', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running', backend: 'kubernetes' })
  await addSample(admin.user.tenant_id, id, 5)
  const { metrics } = assertToolSuccess(t, await useTool(app, token, 'get_instance_metrics', { instance_id: id }), 'get_instance_metrics')
  t.match(metrics, {
    instance_id: id, source: 'sample', stale: false,
    cpu: { used_cores: 0.5, limit_cores: 1, percent_of_limit: 50 },
    memory: { used_mb: 768, limit_mb: 1024, percent_of_limit: 75 },
    storage: { database_mb: 20.2, volume_mb: 4, limit_mb: 10240 }
  })
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${id}/metrics`)
  t.same(metrics, rest.data.metrics, 'the same object as the route')
})

t.test('an old sample with a backend that cannot be asked is served stale; without one, METRICS_UNAVAILABLE as the route says', async (t) => {
  const stale = await recordInstance(app, admin.user.tenant_id, { state: 'running', backend: 'kubernetes' })
  await addSample(admin.user.tenant_id, stale, 3600)
  t.match(assertToolSuccess(t, await useTool(app, token, 'get_instance_metrics', { instance_id: stale }), 'stale').metrics, { source: 'sample', stale: true })

  const none = await recordInstance(app, admin.user.tenant_id, { state: 'running', backend: 'kubernetes' })
  const error = assertToolError(t, await useTool(app, token, 'get_instance_metrics', { instance_id: none }), 'METRICS_UNAVAILABLE')
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${none}/metrics`)
  t.equal(rest.status, 503)
  t.same(error, rest.data.error, 'same code, message and details')
})

t.test('another company\'s instance is INSTANCE_NOT_FOUND, and nothing changes', async (t) => {
  const victim = await signup(app)
  const theirs = await recordInstance(app, victim.user.tenant_id, { state: 'running' })
  await addSample(victim.user.tenant_id, theirs, 5)
  const before = await tenantSnapshot(app, victim.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'get_instance_metrics', { instance_id: theirs }), 'INSTANCE_NOT_FOUND')
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), before)
})

t.test('invalid arguments are VALIDATION_FAILED naming the field', async (t) => {
  for (const args of [{}, { instance_id: 'prod' }, { instance_id: 0 }, { instance_id: 1, tenant_id: admin.user.tenant_id }]) {
    const error = assertToolError(t, await useTool(app, token, 'get_instance_metrics', args), 'VALIDATION_FAILED', JSON.stringify(args))
    t.ok(error.details.fields.length > 0, 'names the field')
  }
})
