/**
 * The reader pods of Kubernetes archive downloads, on the fake API server (simulated pods: the
 * reading itself is run for real in test/routes/api/instances/backups-download-kubernetes.test.ts):
 * the affinity to a Job pod that holds the ReadWriteOnce backup claim (else near the instance), the deletion of a pod that
 * never turns ready, the sweep of what a killed process left, a quota refusal while this process's
 * own deletions are on their way.
 */
import t from 'tap'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { CoreV1Api } from '@kubernetes/client-node'
import { instanceSpec, QUOTA, setup, TENANT_ID } from './setup.ts'
import { waitFor } from '../../support/kube/client-helpers.ts'
import { ArchiveReadError } from '../../../provisioning/backup-runner.ts'
import { createArchiveReader, readerPodManifest } from '../../../provisioning/kubernetes/archive-reader.ts'
import { createKubeApi } from '../../../provisioning/kubernetes/kube-api.ts'
import { createApiCaller } from '../../../provisioning/kubernetes/api-call.ts'
import { backupClaimOf } from '../../../provisioning/kubernetes/backup-job.ts'

const NS = 'erp-acme'
const isReader = (pod: { metadata?: { labels?: Record<string, string> } }): boolean => pod.metadata?.labels?.['erp.portal/purpose'] === 'backup-reader'

t.test('while a backup Job\'s pod holds the backup claim, the reader must run on its node; a reader never ready is deleted', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 20 }, { backupPollMs: 10, backupTimeoutMs: 20_000, backupReaderReadyMs: 300, backupReaderPollMs: 20 })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const spec = instanceSpec()
  await backend.provision(spec)
  const key = `kubernetes:backups-acme/${spec.instanceUid}/backup-3.tar`

  kube.holdPods(NS)
  const alone = backend.clusterBackups.openArchive(spec, key, { size: 10, backupId: 3 })
  const first = await waitFor(async () => kube.list('Pod', NS).find(isReader))
  t.same(first.spec.affinity, {
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'erp', 'app.kubernetes.io/instance': spec.subdomain } }, topologyKey: 'kubernetes.io/hostname' } }]
    }
  }, 'no pod holds the claim: near the instance\'s pods, where a backup Job would have to run')
  await t.rejects(alone, ArchiveReadError)

  const backingUp = backend.clusterBackups.archive(spec, 15, { backupId: 4, manifest: {} })
  await waitFor(async () => kube.list('Pod', NS).some((p) => p.metadata?.labels?.['job-name'] === 'erp-backup-4' && p.status?.phase === 'Running'))
  const reading = backend.clusterBackups.openArchive(spec, key, { size: 10, backupId: 3 })
  const reader = await waitFor(async () => kube.list('Pod', NS).find(isReader))
  t.same(reader.spec.affinity, {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{
        labelSelector: { matchLabels: { 'app.kubernetes.io/managed-by': 'erp-portal' }, matchExpressions: [{ key: 'erp.portal/purpose', operator: 'In', values: ['backup', 'restore', 'backup-removal', 'backup-reader'] }] },
        topologyKey: 'kubernetes.io/hostname'
      }]
    }
  }, 'beside the Job pod that has the ReadWriteOnce claim attached')
  const failure = await reading.catch((error: unknown) => error)
  t.match(failure, { name: 'ArchiveReadError', reason: 'not-ready', message: /was not ready within 0 s: phase Pending, ImagePullBackOff/ })
  t.same(kube.list('Pod', NS).filter(isReader), [], 'the pod is deleted')

  await t.rejects(backend.clusterBackups.openArchive(spec, 'kubernetes:backups-acme/inst-other-0001/backup-3.tar', { size: 10, backupId: 3 }), TypeError, 'another instance\'s folder is never read')
  kube.setPodLogs(NS, 'erp-backup-4', `ERP-BACKUP-RESULT 1 ${'a'.repeat(64)}\n`)
  kube.completeJob(NS, 'erp-backup-4')
  await backingUp
  t.same(kube.internalErrors, [])
})

t.test('the sweep deletes reader pods that ended or outlived their deadline, and nothing else', async (t) => {
  const { kube, backend } = await setup(t, {}, { backupTimeoutMs: 3_600_000 })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const spec = instanceSpec()
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const options = { image: 'busybox:1.37', claimOf: backupClaimOf }
  const expiring = await core.createNamespacedPod({ namespace: NS, body: readerPodManifest(spec, 1, { ...options, deadlineSeconds: 1 }, {}) })
  const current = await core.createNamespacedPod({ namespace: NS, body: readerPodManifest(spec, 2, { ...options, deadlineSeconds: 3600 }, {}) })
  const other = await core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'someone-else', labels: { 'erp.portal/purpose': 'debugging' } }, spec: { containers: [{ name: 'c', image: 'busybox:1', resources: { limits: { memory: '16Mi', cpu: '10m' } } }] } } })
  await waitFor(async () => (await core.readNamespacedPod({ name: expiring.metadata?.name ?? '', namespace: NS })).status?.phase === 'Failed', { timeoutMs: 5000, intervalMs: 100 })
  t.match(await core.readNamespacedPod({ name: expiring.metadata?.name ?? '', namespace: NS }), { status: { reason: 'DeadlineExceeded' } })
  t.equal(await backend.clusterBackups.sweep?.(), 1)
  t.same(kube.list('Pod', NS).map((p) => p.metadata?.name).sort(), [current.metadata?.name, other.metadata?.name].sort(), 'the reader still within its deadline, and pods that are not readers, stay')
  t.same(kube.internalErrors, [])
})

t.test('a download asked for while the last ones\' pods are still being deleted waits for those deletions rather than answering busy', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 0 })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  const spec = instanceSpec()
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const fill = { cpu: `${QUOTA.cpuMillicores + 500}m`, memory: '1Gi' }
  await core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'instance-and-backup' }, spec: { containers: [{ name: 'c', image: 'busybox:1', resources: { requests: fill, limits: fill } }] } } })
  const server = kube.kubeConfig.getCurrentCluster()?.server ?? ''
  const real = createKubeApi(kube.kubeConfig, createApiCaller({ timeoutMs: 5000, retries: 0, retryBaseMs: 10, maxRetryDelayMs: 10, server }))
  let deletions = 0
  const slowDeletion: typeof real = { ...real, removePod: async (namespace, name) => { deletions++; await new Promise((resolve) => setTimeout(resolve, 300)); return await real.removePod(namespace, name) } }
  const archive = Buffer.from('the archive')
  const answer = (): IncomingMessage => Object.assign(Readable.from([archive]), { statusCode: 200, headers: { 'content-length': String(archive.length) } }) as unknown as IncomingMessage
  const reader = createArchiveReader(slowDeletion, { image: 'busybox:1.37', claimOf: backupClaimOf, readyMs: 2000, pollMs: 10, deadlineSeconds: 60, server, stream: async () => answer() })
  const key = `kubernetes:backups-acme/${spec.instanceUid}/backup-3.tar`
  const readAll = async (): Promise<string> => Buffer.concat(await (await reader.open(spec, key, { size: archive.length, backupId: 3 })).toArray()).toString()

  t.same(await Promise.all([readAll(), readAll()]), ['the archive', 'the archive'], 'two downloads fill the readers\' room in the quota (the rest is taken)')
  t.equal(kube.list('Pod', NS).filter(isReader).length, 2, 'their deletions have not reached the API server yet')
  t.equal(await readAll(), 'the archive', 'the third waits for them instead of answering busy')
  t.equal(deletions, 3, 'and its own pod goes too')

  const first = await reader.open(spec, key, { size: archive.length, backupId: 3 })
  const second = await reader.open(spec, key, { size: archive.length, backupId: 3 })
  await t.rejects(reader.open(spec, key, { size: archive.length, backupId: 3 }), { name: 'ArchiveReadError', reason: 'busy' }, 'with two downloads still reading, the quota is full: busy at once')
  first.destroy(); second.destroy()
  await waitFor(async () => kube.list('Pod', NS).filter(isReader).length === 0)
  t.same(kube.internalErrors, [])
})
