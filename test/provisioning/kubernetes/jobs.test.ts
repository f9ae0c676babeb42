/** The Job primitive against the fake API server: the manifest it sends, waiting, logs and deletion. */
import t from 'tap'
import { setup, TENANT_ID, QUOTA } from './setup.ts'
import { waitFor } from '../../support/kube/client-helpers.ts'
import type { JobSpec } from '../../../provisioning/kubernetes/jobs.ts'

const NS = 'erp-acme'

const spec = (name: string, overrides: Partial<JobSpec> = {}): JobSpec => ({
  namespace: NS,
  name,
  labels: { 'app.kubernetes.io/managed-by': 'erp-portal', purpose: 'test' },
  image: 'erp-backup:17',
  command: ['sh', '-c', 'echo hello'],
  env: { MODE: 'full' },
  envFromSecrets: ['erp-shop-db'],
  volumes: [{ claim: 'erp-shop-data', mountPath: '/data', readOnly: true }, { claim: 'backups-acme', mountPath: '/backups', subPath: 'shop' }],
  resources: { limits: { memory: '256Mi', cpu: '500m' } },
  activeDeadlineSeconds: 3600,
  ttlSecondsAfterFinished: 86400,
  ...overrides
})

t.test('create sends the Job as specified; a second create of the same name says it exists', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  t.equal(await backend.jobs.create(spec('dump')), true)
  const job = kube.get('Job', NS, 'dump')
  t.match(job?.spec, { backoffLimit: 0, activeDeadlineSeconds: 3600, ttlSecondsAfterFinished: 86400 })
  const pod = job?.spec.template.spec
  t.equal(pod.restartPolicy, 'Never')
  t.match(pod.containers, [{ name: 'main', image: 'erp-backup:17', command: ['sh', '-c', 'echo hello'], env: [{ name: 'MODE', value: 'full' }], envFrom: [{ secretRef: { name: 'erp-shop-db' } }], resources: { limits: { memory: '256Mi' } } }])
  t.match(pod.containers[0].volumeMounts, [{ mountPath: '/data', readOnly: true }, { mountPath: '/backups', subPath: 'shop', readOnly: false }])
  t.match(pod.volumes, [{ persistentVolumeClaim: { claimName: 'erp-shop-data', readOnly: true } }, { persistentVolumeClaim: { claimName: 'backups-acme' } }])
  t.equal(kube.list('Pod', NS).length, 1, 'its pod runs within the tenant quota (limits set)')
  t.equal(await backend.jobs.create(spec('dump')), false)
  t.same(kube.internalErrors, [])
})

t.test('wait: completion, failure with the reason, a deadline, a Job that is gone', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.jobs.create(spec('ok'))
  t.equal(await backend.jobs.outcome(NS, 'ok'), undefined, 'running')
  const waiting = backend.jobs.wait(NS, 'ok', { timeoutMs: 5000, intervalMs: 10 })
  await waitFor(async () => kube.list('Pod', NS).length === 1)
  kube.setPodLogs(NS, 'ok', 'all done\n')
  kube.completeJob(NS, 'ok')
  t.same(await waiting, { state: 'succeeded' })
  t.equal(await backend.jobs.logs(NS, 'ok'), 'all done\n')

  await backend.jobs.create(spec('bad'))
  kube.setPodLogs(NS, 'bad', 'pg_dump: error: connection refused\n')
  kube.failJob(NS, 'bad', { exitCode: 1 })
  t.same(await backend.jobs.wait(NS, 'bad', { timeoutMs: 5000, intervalMs: 10 }), { state: 'failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' })
  t.equal(await backend.jobs.logs(NS, 'bad', { tailLines: 1 }), 'pg_dump: error: connection refused\n')

  await backend.jobs.create(spec('stuck'))
  t.same(await backend.jobs.wait(NS, 'stuck', { timeoutMs: 50, intervalMs: 10 }), { state: 'timeout' })
  t.same(await backend.jobs.wait(NS, 'never-made', { timeoutMs: 50, intervalMs: 10 }), { state: 'missing' })
  t.equal(await backend.jobs.logs(NS, 'never-made'), '', 'no pod, no log')
})

t.test('remove deletes the Job and its pods (not the batch/v1 default orphaning); twice is harmless', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.jobs.create(spec('dump'))
  kube.completeJob(NS, 'dump')
  t.equal(await backend.jobs.remove(NS, 'dump'), true)
  t.equal(kube.get('Job', NS, 'dump'), undefined)
  t.same(kube.list('Pod', NS), [], 'its pod went with it')
  t.equal(await backend.jobs.remove(NS, 'dump'), false)
  t.match(kube.requests.find((r) => r.method === 'DELETE'), { query: { propagationPolicy: 'Background' } })
})

t.test('a pod refused by the tenant quota leaves the Job waiting: wait reports the deadline', async (t) => {
  const { backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.jobs.create(spec('greedy', { resources: { limits: { memory: '64Gi', cpu: '1' } } }))
  t.same(await backend.jobs.wait(NS, 'greedy', { timeoutMs: 60, intervalMs: 10 }), { state: 'timeout' })
  t.equal(await backend.jobs.logs(NS, 'greedy'), '')
})
