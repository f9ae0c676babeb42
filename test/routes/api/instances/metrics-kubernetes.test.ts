/** GET /metrics on the fake Kubernetes API server: PodMetrics and the claim; metrics-server missing gives stale or 503. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { fakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'

t.test('live usage from PodMetrics; without metrics-server the last sample, stale, or 503 without one', async (t) => {
  const kube = await fakeKubeApiServer(t, { jobRunMs: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const { app, databaseUrl } = await build(t, {
    env: { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', INSTANCES_DOMAIN: 'erp.test', RECONCILE_SECONDS: 3600, METRICS_INTERVAL_SECONDS: 60 }
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const create = async (subdomain: string): Promise<number> => {
    const created = await app.inject({
      method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
      payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'kubernetes' }
    })
    const { id } = created.json().instance
    await waitForState(app, admin.token, id, ['running', 'error'])
    return id
  }
  const get = (id: number) => app.inject({ method: 'GET', url: `/api/instances/${id}/metrics`, headers: bearer(admin.token) })
  const subdomain = uniqueSubdomain('kmet')
  const id = await create(subdomain)
  kube.setPodUsage(`erp-${admin.subdomain}`, `erp-${subdomain}`, { cpu: '600m', memory: '768Mi' })

  const live = await get(id)
  t.equal(live.statusCode, 200, live.body)
  t.match(live.json().metrics, {
    source: 'live', stale: false,
    cpu: { used_cores: 0.6, limit_cores: 1, percent_of_limit: 60 },
    memory: { used_mb: 768, limit_mb: 1024, percent_of_limit: 75 },
    storage: { volume_mb: null, volume_capacity_mb: 10240, limit_mb: 10240 }
  })
  t.ok(live.json().metrics.storage.database_mb > 0, 'the database is measured')

  kube.setMetricsServer(false)
  await app.sql({ text: 'UPDATE metric_samples SET sampled_at = sampled_at - interval \'10 minutes\' WHERE instance_id = $1', values: [id] })
  const stale = await get(id)
  t.equal(stale.statusCode, 200)
  t.match(stale.json().metrics, { source: 'sample', stale: true, cpu: { used_cores: 0.6 }, memory: { used_mb: 768 } })

  await app.sql({ text: 'DELETE FROM metric_samples WHERE instance_id = $1', values: [id] })
  const none = await get(id)
  t.equal(none.statusCode, 503)
  t.match(none.json().error, { code: 'METRICS_UNAVAILABLE', message: /metrics-server is not installed/, details: { backend: 'kubernetes' } })
  t.same(kube.internalErrors, [])
})
