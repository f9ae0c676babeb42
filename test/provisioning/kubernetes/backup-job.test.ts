/** The Kubernetes backup runner against the fake API server: the Job it runs, and what it makes of the Job's end. */
import t from 'tap'
import { instanceSpec, QUOTA, setup, TENANT_ID } from './setup.ts'
import { waitFor } from '../../support/kube/client-helpers.ts'
import { BACKUP_SCRIPT, parseResult, RESULT_MARK } from '../../../provisioning/kubernetes/backup-job.ts'

const NS = 'erp-acme'
const SHA = 'a'.repeat(64)
const manifest = { format: 1, backup_id: 7, instance: { id: 3, name: 'Shop', subdomain: 'shop' } }

async function ready (t: Parameters<typeof setup>[0]) {
  const context = await setup(t, {}, { backupImage: 'erp-backup:{pg_major}', backupPollMs: 10, backupTimeoutMs: 5000, backupStorageGb: 7 })
  await context.backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await context.backend.provision(instanceSpec())
  return context
}

t.test('a backup is a Job in the tenant namespace: BACKUP_IMAGE, the database Secret, the data and backup claims', async (t) => {
  const { kube, backend } = await ready(t)
  const spec = instanceSpec()
  const running = backend.clusterBackups.archive(spec, 15, { backupId: 7, manifest })
  const job = await waitFor(async () => kube.get('Job', NS, 'erp-backup-7'))
  t.match(job.metadata?.labels, { 'app.kubernetes.io/managed-by': 'erp-portal', 'erp.portal/instance-id': spec.instanceUid, 'erp.portal/purpose': 'backup' })
  const pod = job.spec.template.spec
  const container = pod.containers[0]
  t.equal(container.image, 'erp-backup:15', 'the client matching the server\'s major version')
  t.same(container.command, ['sh', '-c', BACKUP_SCRIPT])
  t.same(container.envFrom, [{ secretRef: { name: 'erp-shop-db' } }], 'the instance\'s database Secret')
  t.match(container.env, [{ name: 'BACKUP_ID', value: '7' }, { name: 'ARCHIVE', value: `/backups/${spec.instanceUid}/backup-7.tar` }, { name: 'MANIFEST_HEAD', value: JSON.stringify(manifest).slice(0, -1) }])
  t.match(pod.volumes, [{ persistentVolumeClaim: { claimName: 'erp-shop-data', readOnly: true } }, { persistentVolumeClaim: { claimName: 'backups-acme' } }])
  t.match(container.volumeMounts, [{ mountPath: '/data', readOnly: true }, { mountPath: '/backups', readOnly: false }])
  t.ok(container.resources.limits.memory !== undefined && container.resources.limits.cpu !== undefined, 'limits, which the tenant quota requires')
  t.match(kube.get('PersistentVolumeClaim', NS, 'backups-acme')?.spec, { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '7Gi' } } }, 'the tenant\'s backup claim, made on first use')
  t.equal(job.spec.backoffLimit, 0)

  kube.setPodLogs(NS, 'erp-backup-7', `pg_dump: notice\n${RESULT_MARK} 123456 ${SHA}\n`)
  kube.completeJob(NS, 'erp-backup-7')
  t.same(await running, { key: `kubernetes:backups-acme/${spec.instanceUid}/backup-7.tar`, bytes: 123456, sha256: SHA })
  t.equal(kube.get('Job', NS, 'erp-backup-7'), undefined, 'the finished Job is deleted')
  t.same(kube.list('Pod', NS).filter((p) => p.metadata?.labels?.['job-name'] !== undefined), [], 'with its pod')
  t.same(kube.internalErrors, [])
})

t.test('the backup pod is bound to the node of the instance\'s pod, which holds its ReadWriteOnce data claim; a stopped instance\'s is not', async (t) => {
  const { kube, backend } = await ready(t)
  const spec = instanceSpec()
  await waitFor(async () => kube.list('Pod', NS).some((p) => p.metadata?.labels?.['app.kubernetes.io/instance'] === 'shop'))
  const running = backend.clusterBackups.archive(spec, 15, { backupId: 11, manifest })
  const job = await waitFor(async () => kube.get('Job', NS, 'erp-backup-11'))
  t.same(job.spec.template.spec.affinity, {
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'erp', 'app.kubernetes.io/instance': 'shop' } }, topologyKey: 'kubernetes.io/hostname' }] }
  })
  kube.setPodLogs(NS, 'erp-backup-11', `${RESULT_MARK} 1 ${SHA}\n`)
  kube.completeJob(NS, 'erp-backup-11')
  await running

  await backend.stop(spec)
  await waitFor(async () => !kube.list('Pod', NS).some((p) => p.metadata?.labels?.['app.kubernetes.io/instance'] === 'shop'))
  const stopped = backend.clusterBackups.archive(spec, 15, { backupId: 12, manifest })
  const second = await waitFor(async () => kube.get('Job', NS, 'erp-backup-12'))
  t.equal(second.spec.template.spec.affinity, undefined, 'no pod holds the claim: a required affinity to none would never schedule')
  kube.setPodLogs(NS, 'erp-backup-12', `${RESULT_MARK} 1 ${SHA}\n`)
  kube.completeJob(NS, 'erp-backup-12')
  await stopped
})

t.test('a failed Job fails the backup with the end of its log; the next attempt starts a fresh Job', async (t) => {
  const { kube, backend } = await ready(t)
  const spec = instanceSpec()
  const first = backend.clusterBackups.archive(spec, 15, { backupId: 8, manifest })
  await waitFor(async () => kube.get('Job', NS, 'erp-backup-8'))
  kube.setPodLogs(NS, 'erp-backup-8', 'pg_dump: error: connection to server failed: password authentication failed\n')
  kube.failJob(NS, 'erp-backup-8')
  await t.rejects(first, /erp-backup-8 Job in erp-acme failed \(BackoffLimitExceeded: Job has reached the specified backoff limit\): pg_dump: error: connection to server failed: password authentication failed/)

  const second = backend.clusterBackups.archive(spec, 15, { backupId: 8, manifest })
  const uid = (await waitFor(async () => kube.get('Job', NS, 'erp-backup-8')))?.metadata?.uid
  kube.completeJob(NS, 'erp-backup-8')
  await t.rejects(second, /completed without reporting its archive/, 'a Job that ends well but reports nothing is not a backup')
  t.ok(uid !== undefined)
})

t.test('a crashed control plane finds the Job of its earlier attempt still running and waits for it', async (t) => {
  const { kube, backend } = await ready(t)
  const spec = instanceSpec()
  // What the killed attempt left: its Job, still running.
  await backend.jobs.create({ namespace: NS, name: 'erp-backup-9', image: 'erp-backup:15', command: ['sh'], resources: { limits: { memory: '64Mi', cpu: '100m' } } })
  const uid = kube.get('Job', NS, 'erp-backup-9')?.metadata?.uid
  const retry = backend.clusterBackups.archive(spec, 15, { backupId: 9, manifest })
  await waitFor(async () => kube.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/jobs')).length === 2 && kube.requests.some((r) => r.method === 'GET' && r.path.endsWith('/jobs/erp-backup-9')))
  t.equal(kube.get('Job', NS, 'erp-backup-9')?.metadata?.uid, uid, 'the same Job, not a second one')
  kube.setPodLogs(NS, 'erp-backup-9', `${RESULT_MARK} 10 ${SHA}\n`)
  kube.completeJob(NS, 'erp-backup-9')
  t.match(await retry, { bytes: 10 })
})

t.test('removing an archive runs rm on the backup claim, and refuses a key of another tenant', async (t) => {
  const { kube, backend } = await ready(t)
  const spec = instanceSpec()
  const key = `kubernetes:backups-acme/${spec.instanceUid}/backup-7.tar`
  const removing = backend.clusterBackups.removeArchive(spec, 15, key)
  const job = await waitFor(async () => kube.get('Job', NS, 'erp-backup-rm-7'))
  t.same(job.spec.template.spec.containers[0].command, ['rm', '-f', `/backups/${spec.instanceUid}/backup-7.tar`, `/backups/${spec.instanceUid}/backup-7.tar.partial`])
  kube.completeJob(NS, 'erp-backup-rm-7')
  await removing
  await t.rejects(backend.clusterBackups.removeArchive(spec, 15, 'kubernetes:backups-other/x/backup-1.tar'), TypeError)
  await t.rejects(backend.clusterBackups.removeArchive(spec, 15, 'kubernetes:backups-acme/../../etc/backup-1.tar'), TypeError)
})

t.test('the result line is read from anywhere in the log, and only when well formed', async (t) => {
  t.same(parseResult(`a\n${RESULT_MARK} 42 ${SHA}\nb\n`), { bytes: 42, sha256: SHA })
  t.equal(parseResult(`${RESULT_MARK} 42 ${SHA.slice(1)}\n`), undefined)
  t.equal(parseResult(`x ${RESULT_MARK} 42 ${SHA}\n`), undefined)
  t.equal(parseResult(''), undefined)
})
