/** The Kubernetes restore against the fake API server: the Job it runs, and what it makes of the Job's end. */
import t from 'tap'
import { instanceSpec, QUOTA, setup, TENANT_ID } from './setup.ts'
import { waitFor } from '../../support/kube/client-helpers.ts'
import { ArchiveCorruptError } from '../../../provisioning/backup-runner.ts'
import { RESTORE_MARK, RESTORE_SCRIPT } from '../../../provisioning/kubernetes/restore-script.ts'
import { restoreJobOf } from '../../../provisioning/kubernetes/restore-job.ts'

const NS = 'erp-acme'
const SHA = 'c'.repeat(64)
// The instance takes the whole plan: the quota's room for backup-side Jobs must hold the restore Job too.
const spec = instanceSpec({ resources: { memoryMb: QUOTA.memoryMb, cpuMillicores: QUOTA.cpuMillicores, storageGb: 10, workers: 2 } })
const key = `kubernetes:backups-acme/${spec.instanceUid}/backup-7.tar`
const request = { backupId: 7, key, sha256: SHA, database: 'erp_shop_restore' }
const JOB = restoreJobOf(7, spec.instanceUid)

async function ready (t: Parameters<typeof setup>[0]) {
  const context = await setup(t, {}, { backupImage: 'erp-backup:{pg_major}', backupPollMs: 10, backupTimeoutMs: 5000 })
  await context.backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await context.backend.provision(spec)
  return context
}

t.test('a restore is a Job in the tenant namespace: BACKUP_IMAGE, the database Secret, the backup claim read-only, the data claim', async (t) => {
  const { kube, backend } = await ready(t)
  const running = backend.clusterBackups.restore(spec, 15, request)
  const job = await waitFor(async () => kube.get('Job', NS, JOB))
  t.match(job.metadata?.labels, { 'app.kubernetes.io/managed-by': 'erp-portal', 'erp.portal/instance-id': spec.instanceUid, 'erp.portal/purpose': 'restore' })
  const pod = job.spec.template.spec
  const container = pod.containers[0]
  t.equal(container.image, 'erp-backup:15')
  t.same(container.command, ['sh', '-c', RESTORE_SCRIPT])
  t.same(container.envFrom, [{ secretRef: { name: 'erp-shop-db' } }], 'the instance\'s database Secret: the staged database is its role\'s')
  t.same(container.env, [
    { name: 'ARCHIVE', value: `/backups/${spec.instanceUid}/backup-7.tar` },
    { name: 'EXPECTED_SHA256', value: SHA },
    { name: 'RESTORE_DATABASE', value: 'erp_shop_restore' }
  ])
  t.same(pod.volumes.map((v: any) => v.persistentVolumeClaim), [{ claimName: 'backups-acme', readOnly: true }, { claimName: 'erp-shop-data', readOnly: false }])
  t.same(container.volumeMounts.map((m: any) => [m.mountPath, m.readOnly]), [['/backups', true], ['/data', false]])
  t.equal(job.spec.activeDeadlineSeconds, 5, 'bounded by BACKUP_TIMEOUT')
  t.equal(job.spec.backoffLimit, 0)
  t.equal(pod.affinity, undefined, 'no node affinity: the instance is stopped, its claim free')
  t.ok(container.resources.limits.memory !== undefined && container.resources.limits.cpu !== undefined, 'limits, which the tenant quota requires')
  await waitFor(async () => kube.list('Pod', NS).some((p) => p.metadata?.labels?.['job-name'] === JOB))
  t.pass('its pod is admitted next to an instance that takes the whole plan')

  kube.setPodLogs(NS, JOB, `archive verified; loading the database\n${RESTORE_MARK} ok\n`)
  kube.completeJob(NS, JOB)
  await running
  t.equal(kube.get('Job', NS, JOB), undefined, 'the finished Job is deleted')
  t.same(kube.internalErrors, [])
})

t.test('a corrupt archive: ArchiveCorruptError with the script\'s reason, not a plain failure', async (t) => {
  const { kube, backend } = await ready(t)
  const running = backend.clusterBackups.restore(spec, 15, request)
  await waitFor(async () => kube.get('Job', NS, JOB))
  kube.setPodLogs(NS, JOB, `${RESTORE_MARK} corrupt filestore.tar has SHA-256 ${'d'.repeat(64)}, the manifest says ${SHA}\n`)
  kube.failJob(NS, JOB, { exitCode: 3 })
  const error = await running.then(() => undefined, (e: unknown) => e)
  t.ok(error instanceof ArchiveCorruptError)
  t.match((error as Error).message, /corrupt: filestore\.tar has SHA-256 d{64}, the manifest says c{64}; nothing was changed/)
})

t.test('a failed Job fails the restore with its last log line; a Job that reports nothing is no restore', async (t) => {
  const { kube, backend } = await ready(t)
  const first = backend.clusterBackups.restore(spec, 15, request)
  await waitFor(async () => kube.get('Job', NS, JOB))
  kube.setPodLogs(NS, JOB, 'archive verified; loading the database\npg_restore: error: could not execute query: ERROR:  out of shared memory\n')
  kube.failJob(NS, JOB)
  await t.rejects(first, { message: 'The restore Job failed: pg_restore: error: could not execute query: ERROR:  out of shared memory' })
  t.notOk((await first.catch((e: unknown) => e)) instanceof ArchiveCorruptError)

  const second = backend.clusterBackups.restore(spec, 15, request)
  await waitFor(async () => kube.get('Job', NS, JOB))
  kube.completeJob(NS, JOB)
  await t.rejects(second, /completed without reporting its result/)
})

t.test('a retried restore adopts the Job of its earlier attempt', async (t) => {
  const { kube, backend } = await ready(t)
  // What the killed attempt left: its Job, still running.
  await backend.jobs.create({ namespace: NS, name: JOB, image: 'erp-backup:15', command: ['sh'], resources: { limits: { memory: '64Mi', cpu: '100m' } } })
  const uid = kube.get('Job', NS, JOB)?.metadata?.uid
  const retry = backend.clusterBackups.restore(spec, 15, request)
  await waitFor(async () => kube.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/jobs')).length === 2 && kube.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/jobs/${JOB}`)))
  t.equal(kube.get('Job', NS, JOB)?.metadata?.uid, uid, 'the same Job, not a second one')
  kube.setPodLogs(NS, JOB, `${RESTORE_MARK} ok\n`)
  kube.completeJob(NS, JOB)
  await retry
  t.equal(kube.get('Job', NS, JOB), undefined)
})

t.test('a key on another tenant\'s claim, or leaving the claim, is refused before any Job', async (t) => {
  const { kube, backend } = await ready(t)
  await t.rejects(backend.clusterBackups.restore(spec, 15, { ...request, key: 'kubernetes:backups-other/x/backup-7.tar' }), TypeError)
  await t.rejects(backend.clusterBackups.restore(spec, 15, { ...request, key: 'kubernetes:backups-acme/../x/backup-7.tar' }), TypeError)
  t.same(kube.list('Job', NS).filter((j) => j.metadata?.labels?.['erp.portal/purpose'] === 'restore'), [])
})
