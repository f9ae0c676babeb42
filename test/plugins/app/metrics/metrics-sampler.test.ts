/**
 * The sampler: two app replicas on one database (the pg-boss queue is shared) record each running
 * instance once per interval; each backend has its own bounded pool, so a slow one holds up only
 * its own instances.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { createMetricsSampler, METRICS_SAMPLER_JOB } from '../../../../plugins/app/metrics/metrics-sampler.ts'
import type { UsageReader } from '../../../../plugins/app/metrics/usage-reading.ts'
import { createUsageReader } from '../../../../plugins/app/metrics/usage-reading.ts'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { recordInstances } from '../../../support/instance-rows.ts'
import { fakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'

async function samplesPerInstance (app: FastifyInstance, ids: number[]): Promise<number[]> {
  const rows = await app.sql<{ id: string, n: number }>({
    text: 'SELECT i.id, (SELECT count(*)::int FROM metric_samples s WHERE s.instance_id = i.id) AS n FROM instances i WHERE i.id = ANY($1::bigint[]) ORDER BY i.id',
    values: [ids]
  })
  return rows.map((row) => row.n)
}

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

t.test('two replicas on one database: each running instance is sampled once per interval', async (t) => {
  const kube = await fakeKubeApiServer(t, { jobRunMs: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const env = { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', METRICS_INTERVAL_SECONDS: 60, RECONCILE_SECONDS: 3600 }
  const one = await build(t, { env })
  const two = await build(t, { env, databaseUrl: one.databaseUrl })
  const admin = await signup(one.app)
  const running = await recordInstances(one.app, admin.user.tenant_id, { count: 6, backend: 'kubernetes' })
  const [stopped = 0] = await recordInstances(one.app, admin.user.tenant_id, { backend: 'kubernetes', states: ['stopped'] })

  // One interval: a job queued by each replica (as both schedules would); the singleton queue runs them one after the other.
  const pass = async (): Promise<void> => {
    const ids = await Promise.all([one.app, two.app].map(async (app) => app.jobs.boss.send(METRICS_SAMPLER_JOB, {})))
    await until('both sampler jobs', async () => {
      const jobs = await Promise.all(ids.map(async (id) => one.app.jobs.boss.getJobById(METRICS_SAMPLER_JOB, id ?? '')))
      return jobs.every((job) => job?.state === 'completed')
    })
  }
  await pass()
  t.same(await samplesPerInstance(one.app, running), running.map(() => 1), 'one sample per running instance')
  t.same(await samplesPerInstance(one.app, [stopped]), [0], 'a stopped instance is not sampled')

  // The next interval.
  await one.app.sql({ text: 'UPDATE metric_samples SET sampled_at = sampled_at - interval \'60 seconds\'', values: [] })
  await pass()
  t.same(await samplesPerInstance(one.app, running), running.map(() => 2), 'one more each')
  t.same(kube.internalErrors, [])
})

t.test('a slow backend holds up only its own instances, and each backend reads at most METRICS_CONCURRENCY at once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const dockerIds = await recordInstances(app, admin.user.tenant_id, { count: 5, backend: 'docker' })
  const kubeIds = await recordInstances(app, admin.user.tenant_id, { count: 5, backend: 'kubernetes' })
  const real = createUsageReader({ sql: app.sql, backends: app.instances.backends, databases: app.instances.databases })
  let release: () => void = () => {}
  const dockerGate = new Promise<void>((resolve) => { release = resolve })
  const inFlight = { docker: 0, kubernetes: 0 }
  const most = { docker: 0, kubernetes: 0 }
  // The backends' side is scripted (a Docker engine that takes its time); the samples go to the real database.
  const reader: UsageReader = {
    ...real,
    usage: async (instance) => {
      const backend = instance.backend
      most[backend] = Math.max(most[backend], ++inFlight[backend])
      if (backend === 'docker') await dockerGate
      await new Promise((resolve) => setTimeout(resolve, 20))
      inFlight[backend]--
      return { cpuCores: 0.5, memoryMb: 256, volumeMb: 1, volumeCapacityMb: null }
    }
  }
  const warnings: unknown[] = []
  const sample = createMetricsSampler({ sql: app.sql, reader, intervalSeconds: 60, concurrency: 2, log: { warn: (...args: unknown[]) => { warnings.push(args) } } })
  const pass = sample()
  await until('the Kubernetes instances', async () => (await samplesPerInstance(app, kubeIds)).every((n) => n === 1))
  t.same(await samplesPerInstance(app, dockerIds), dockerIds.map(() => 0), 'the Docker ones still wait for their engine')
  release()
  t.same(await pass, { sampled: 10, failed: 0 })
  t.same(await samplesPerInstance(app, dockerIds), dockerIds.map(() => 1))
  t.same(most, { docker: 2, kubernetes: 2 }, 'two at a time per backend')
  t.same(warnings, [])
  t.same(await sample(), { sampled: 0, failed: 0 }, 'a second pass in the same interval records nothing')
})
