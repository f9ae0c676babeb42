/** batch/v1 Jobs in the fake: defaults, validation, the pod and its log, completion, failure, deadlines and deletion. */
import t from 'tap'
import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { namespaceManifest, rejection } from './client-helpers.ts'

const NS = 'erp-acme'

function job (name: string, overrides: Record<string, unknown> = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, labels: { app: 'backup' } },
    spec: {
      backoffLimit: 0,
      template: { metadata: { labels: { app: 'backup' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'postgres:17', command: ['pg_dump'] }] } },
      ...overrides
    }
  }
}

async function start (t: Parameters<typeof fakeKubeApiServer>[0], options = {}) {
  const kube = await fakeKubeApiServer(t, options)
  kube.seed(namespaceManifest(NS))
  return { kube, batch: kube.kubeConfig.makeApiClient(BatchV1Api), core: kube.kubeConfig.makeApiClient(CoreV1Api) }
}

t.test('a created Job gets its defaults, a generated selector and one labelled pod', async (t) => {
  const { kube, batch, core } = await start(t)
  const created = await batch.createNamespacedJob({ namespace: NS, body: job('dump') })
  const uid = created.metadata?.uid ?? ''
  t.match(created.spec, { parallelism: 1, completions: 1, backoffLimit: 0, completionMode: 'NonIndexed', suspend: false, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } } })
  t.match(created.spec?.template.metadata?.labels, { app: 'backup', 'job-name': 'dump', 'batch.kubernetes.io/job-name': 'dump', 'controller-uid': uid })
  t.equal(created.metadata?.generation, 1)

  const pods = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=dump' })).items
  t.equal(pods.length, 1)
  t.match(pods[0]?.metadata, { name: /^dump-[a-z0-9]{5}$/, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'dump', uid, controller: true }] })
  t.equal(pods[0]?.status?.phase, 'Running')
  const read = await batch.readNamespacedJob({ name: 'dump', namespace: NS })
  t.match(read.status, { active: 1, ready: 1, terminating: 0, startTime: Date })
  t.notOk(read.status?.conditions, 'no condition while it runs')
  t.equal((await batch.listNamespacedJob({ namespace: NS })).items.length, 1)
  t.same(kube.internalErrors, [])
})

t.test('completion: the pod Succeeded, SuccessCriteriaMet + Complete, succeeded 1, its log readable', async (t) => {
  const { kube, batch, core } = await start(t)
  await batch.createNamespacedJob({ namespace: NS, body: job('dump') })
  kube.setPodLogs(NS, 'dump', 'dumped 42 tables\n')
  kube.completeJob(NS, 'dump')
  const done = await batch.readNamespacedJob({ name: 'dump', namespace: NS })
  t.match(done.status, { succeeded: 1, ready: 0, completionTime: Date })
  t.notOk(done.status?.active, 'active omitted when zero')
  t.same(done.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['SuccessCriteriaMet', 'True', 'CompletionsReached'], ['Complete', 'True', 'CompletionsReached']])
  const [pod] = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=dump' })).items
  t.equal(pod?.status?.phase, 'Succeeded')
  t.match(pod?.status?.containerStatuses?.[0]?.state?.terminated, { exitCode: 0, reason: 'Completed' })
  t.equal(await core.readNamespacedPodLog({ name: pod?.metadata?.name ?? '', namespace: NS }), 'dumped 42 tables\n', 'a terminated container keeps its log')
  t.throws(() => kube.completeJob(NS, 'dump'), /no running pod/)
})

t.test('failure: past backoffLimit the Job fails; within it the pod is replaced', async (t) => {
  const { kube, batch, core } = await start(t)
  await batch.createNamespacedJob({ namespace: NS, body: job('once') })
  kube.failJob(NS, 'once', { exitCode: 3 })
  const failed = await batch.readNamespacedJob({ name: 'once', namespace: NS })
  t.match(failed.status, { failed: 1 })
  t.same(failed.status?.conditions?.map((c) => [c.type, c.reason]), [['FailureTarget', 'BackoffLimitExceeded'], ['Failed', 'BackoffLimitExceeded']])
  const [pod] = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=once' })).items
  t.match(pod?.status, { phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 3, reason: 'Error' } } }] })

  await batch.createNamespacedJob({ namespace: NS, body: job('retry', { backoffLimit: 1 }) })
  kube.failJob(NS, 'retry')
  t.equal((await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=retry' })).items.length, 2, 'a second pod')
  t.notOk((await batch.readNamespacedJob({ name: 'retry', namespace: NS })).status?.conditions)
  kube.completeJob(NS, 'retry')
  t.match((await batch.readNamespacedJob({ name: 'retry', namespace: NS })).status, { failed: 1, succeeded: 1, conditions: [{ type: 'SuccessCriteriaMet' }, { type: 'Complete' }] })
})

t.test('activeDeadlineSeconds fails a Job that runs too long', async (t) => {
  const { batch } = await start(t)
  await batch.createNamespacedJob({ namespace: NS, body: job('slow', { activeDeadlineSeconds: 1 }) })
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const read = await batch.readNamespacedJob({ name: 'slow', namespace: NS })
  t.match(read.status?.conditions, [{ type: 'FailureTarget', reason: 'DeadlineExceeded' }, { type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }])
})

t.test('deletion: orphans the pods by default (batch/v1), takes them with Background', async (t) => {
  const { kube, batch, core } = await start(t)
  await batch.createNamespacedJob({ namespace: NS, body: job('a') })
  await batch.createNamespacedJob({ namespace: NS, body: job('b') })
  await batch.deleteNamespacedJob({ name: 'a', namespace: NS })
  const orphans = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=a' })).items
  t.equal(orphans.length, 1, 'the pod stays')
  t.notOk(orphans[0]?.metadata?.ownerReferences, 'without its owner')
  await batch.deleteNamespacedJob({ name: 'b', namespace: NS, propagationPolicy: 'Background' })
  t.same((await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=b' })).items, [])
  t.match(await rejection(batch.readNamespacedJob({ name: 'b', namespace: NS })), { code: 404, message: 'jobs.batch "b" not found' })
  t.match(await rejection(batch.deleteNamespacedJob({ name: 'b', namespace: NS, propagationPolicy: 'Sideways' })), { code: 400 })
  t.same(kube.internalErrors, [])
})

t.test('validation: restartPolicy Always, a bad backoffLimit, a pod affinity without topology key, an immutable template', async (t) => {
  const { batch } = await start(t)
  const always = job('bad')
  always.spec!.template.spec!.restartPolicy = 'Always'
  t.match(await rejection(batch.createNamespacedJob({ namespace: NS, body: always })), {
    code: 422, reason: 'Invalid', details: { kind: 'Job', causes: [{ field: 'spec.template.spec.restartPolicy', message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' }] }
  })
  t.match(await rejection(batch.createNamespacedJob({ namespace: NS, body: job('neg', { backoffLimit: -1 }) })), { code: 422, details: { causes: [{ field: 'spec.backoffLimit' }] } })
  const noImage = job('noimage')
  delete (noImage.spec!.template.spec!.containers[0] as { image?: string }).image
  t.match(await rejection(batch.createNamespacedJob({ namespace: NS, body: noImage })), { code: 422, details: { causes: [{ field: 'spec.template.spec.containers[0].image' }] } })

  const noTopology = job('notopology')
  noTopology.spec!.template.spec!.affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'erp' } }, topologyKey: '' }] } }
  t.match(await rejection(batch.createNamespacedJob({ namespace: NS, body: noTopology })), {
    code: 422, details: { causes: [{ field: 'spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', message: 'Required value: can not be empty' }] }
  })

  await batch.createNamespacedJob({ namespace: NS, body: job('fixed') })
  const created = await batch.readNamespacedJob({ name: 'fixed', namespace: NS }) // the controller has written its status since
  created.spec!.template.spec!.containers[0]!.image = 'postgres:18'
  t.match(await rejection(batch.replaceNamespacedJob({ name: 'fixed', namespace: NS, body: created })), { code: 422, details: { causes: [{ field: 'spec.template', message: /field is immutable/ }] } })
})

t.test('a pod over the namespace\'s compute quota is not created; the Job waits without a condition', async (t) => {
  const { kube, batch, core } = await start(t)
  kube.seed({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: NS }, spec: { hard: { 'limits.memory': '1Gi' } } })
  await batch.createNamespacedJob({ namespace: NS, body: job('nolimits') })
  t.same((await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=nolimits' })).items, [], 'refused: no limits')
  t.notOk((await batch.readNamespacedJob({ name: 'nolimits', namespace: NS })).status?.conditions)
  const limited = job('limited')
  limited.spec!.template.spec!.containers[0]!.resources = { limits: { memory: '256Mi', cpu: '500m' } }
  await batch.createNamespacedJob({ namespace: NS, body: limited })
  t.equal((await core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=limited' })).items.length, 1)
  t.match(kube.get('ResourceQuota', NS, 'q')?.status, { used: { 'limits.memory': '256Mi' } })
  kube.completeJob(NS, 'limited')
  t.match(kube.get('ResourceQuota', NS, 'q')?.status, { used: { 'limits.memory': '0' } }, 'a finished pod no longer counts')
})
