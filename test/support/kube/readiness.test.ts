/**
 * The simulated deployment controller as a backend polling for readiness sees it:
 * ready after the delay, scale to 0 and back, a restart through a pod-template annotation,
 * a rollout held not ready (stuck), and the synthetic pods behind it.
 */
import t from 'tap'
import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node'
import { fakeKubeApiServer, type FakeKubeApiServerOptions } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, serverSideApply, sleep, waitFor, type DeploymentOptions } from './client-helpers.ts'

const NS = 'erp-acme'

/** `kubectl rollout status`'s test: the controller saw this generation and every replica is updated and available. */
function rolloutComplete (d: V1Deployment): boolean {
  const desired = d.spec?.replicas ?? 1
  const s = d.status ?? {}
  return (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) && (s.updatedReplicas ?? 0) === desired && (s.replicas ?? 0) === desired && (s.availableReplicas ?? 0) === desired
}

async function setup (t: Parameters<typeof fakeKubeApiServer>[0], options: FakeKubeApiServerOptions = {}) {
  const kube = await fakeKubeApiServer(t, options)
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const apply = (o: DeploymentOptions = {}) => apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: deploymentManifest(NS, 'web', o), fieldManager: 'erp-portal', force: true }, serverSideApply)
  const read = () => apps.readNamespacedDeployment({ name: 'web', namespace: NS })
  const whenComplete = () => waitFor(async () => { const d = await read(); return rolloutComplete(d) && d })
  const pods = async () => (await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=web' })).items
  return { kube, apps, core, apply, read, whenComplete, pods }
}

t.test('replicas 1 turns ready after the delay, with one ready pod', async (t) => {
  const { kube, apply, read, whenComplete, pods } = await setup(t, { readyDelayMs: 400 })
  const started = Date.now()
  const created = await apply()
  t.same(created.status ?? {}, {}, 'the create response has no status yet')
  const early = await read()
  t.match(early.status, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, unavailableReplicas: 1 })
  t.equal(early.status?.readyReplicas, undefined, 'zero counts are omitted, as the real controller writes them')
  t.match(early.status?.conditions, [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }])
  const [pending] = await pods()
  t.match(pending?.status, { phase: 'Pending', containerStatuses: [{ ready: false, state: { waiting: { reason: 'ContainerCreating' } } }] })

  const ready = await whenComplete()
  t.ok(Date.now() - started >= 400, 'not before the delay')
  t.match(ready.status, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 })
  t.match(ready.status?.conditions, [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }])
  const [pod] = await pods()
  t.match(pod?.metadata, { name: /^web-[a-z0-9]{10}-[a-z0-9]{5}$/, labels: { app: 'web', 'pod-template-hash': /^[a-z0-9]{10}$/ }, ownerReferences: [{ kind: 'ReplicaSet' }] })
  t.match(pod?.status, { phase: 'Running', conditions: [{}, {}, {}, { type: 'Ready', status: 'True' }] })
  const unchanged = await read()
  t.equal(unchanged.metadata?.resourceVersion, ready.metadata?.resourceVersion, 'a settled deployment is not rewritten by polling')
  t.same(kube.internalErrors, [])
})

t.test('scaling to 0 and back', async (t) => {
  const { apply, read, whenComplete, pods } = await setup(t, { readyDelayMs: 300 })
  await apply()
  await whenComplete()
  await apply({ replicas: 0 })
  const stopped = await whenComplete()
  t.equal(stopped.metadata?.generation, 2)
  t.equal(stopped.status?.readyReplicas ?? 0, 0, 'readyReplicas 0 (absent from the JSON)')
  t.equal(stopped.status?.replicas, undefined)
  t.same(await pods(), [], 'no pods')
  t.match(stopped.status?.conditions, [{ type: 'Available', status: 'True' }, { type: 'Progressing', reason: 'NewReplicaSetAvailable' }])

  await apply({ replicas: 1 })
  t.notOk(rolloutComplete(await read()), 'starting again is not instant')
  t.equal((await whenComplete()).status?.readyReplicas, 1)
})

t.test('a restart (pod-template annotation) rolls out a new pod: RollingUpdate keeps the old one until then', async (t) => {
  const { apply, read, whenComplete, pods } = await setup(t, { readyDelayMs: 300 })
  await apply()
  await whenComplete()
  const [before] = await pods()
  const restarted = await apply({ annotations: { 'erp.example/restartedAt': '2026-01-01T00:00:00Z' } })
  t.equal(restarted.metadata?.generation, 2, 'a template change bumps generation')
  const during = await read()
  t.notOk(rolloutComplete(during), 'not ready while rolling out')
  t.match(during.status, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1 }, 'surge: the old pod still serves')
  t.equal((await pods()).length, 2)
  const after = await whenComplete()
  t.match(after.status, { replicas: 1, updatedReplicas: 1, readyReplicas: 1 })
  const now = await pods()
  t.equal(now.length, 1)
  t.not(now[0]?.metadata?.name, before?.metadata?.name, 'a new pod')
  t.not(now[0]?.metadata?.labels?.['pod-template-hash'], before?.metadata?.labels?.['pod-template-hash'], 'from a new template')
})

t.test('with the Recreate strategy a restart goes through readyReplicas 0', async (t) => {
  const { apply, read, whenComplete } = await setup(t, { readyDelayMs: 300 })
  await apply({ strategy: 'Recreate' })
  await whenComplete()
  await apply({ strategy: 'Recreate', annotations: { 'erp.example/restartedAt': 'now' } })
  const during = await read()
  t.equal(during.status?.readyReplicas ?? 0, 0)
  t.match(during.status?.conditions, [{ type: 'Available', status: 'False' }])
  t.equal((await whenComplete()).status?.readyReplicas, 1)
})

t.test('held not ready: the rollout sticks (CrashLoopBackOff, then ProgressDeadlineExceeded) until released', async (t) => {
  const { kube, apps, apply, read, whenComplete, pods } = await setup(t, { readyDelayMs: 20 })
  kube.holdNotReady(NS, 'web')
  await apply()
  await apps.patchNamespacedDeployment({ name: 'web', namespace: NS, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { progressDeadlineSeconds: 1 } }, fieldManager: 'test' }, serverSideApply)
  await sleep(60)
  t.notOk(rolloutComplete(await read()), 'not ready after the delay')
  const [pod] = await pods()
  t.match(pod?.status, { phase: 'Running', containerStatuses: [{ ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }] })
  const stuck = await waitFor(async () => {
    const d = await read()
    return d.status?.conditions?.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded') !== undefined && d
  }, { timeoutMs: 3000, intervalMs: 100 })
  t.match(stuck.status?.conditions, [{ type: 'Available', status: 'False' }, { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }])

  kube.releaseHold(NS, 'web')
  t.match((await whenComplete()).status?.conditions, [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }])
})

t.test('setReady makes the current rollout ready at once, whatever the delay', async (t) => {
  const { kube, apply, read } = await setup(t, { readyDelayMs: 60_000 })
  await apply()
  t.notOk(rolloutComplete(await read()))
  kube.setReady(NS, 'web')
  t.ok(rolloutComplete(await read()))
  t.throws(() => kube.setReady(NS, 'nope'), /no Deployment erp-acme\/nope/)
})
