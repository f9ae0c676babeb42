/**
 * A tenant namespace's ResourceQuota as a cluster enforces it: usage in status, 403 for
 * objects over quota, and pods a Deployment cannot create (missing resources, over the
 * limit) showing only as the Deployment's ReplicaFailure condition.
 */
import t from 'tap'
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, rejection, serverSideApply, waitFor } from './client-helpers.ts'

const NS = 'erp-acme'
const RESOURCES = { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } }

t.test('quota status and 403 over quota for objects and storage', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  await core.createNamespacedResourceQuota({ namespace: NS, body: { metadata: { name: 'tenant' }, spec: { hard: { 'requests.storage': '10Gi', persistentvolumeclaims: '2', 'count/secrets': '1' } } } })
  const claim = (name: string, storage: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } })
  await core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claim('addons-acme', '8Gi') })
  t.match((await core.readNamespacedResourceQuota({ name: 'tenant', namespace: NS })).status, {
    hard: { 'requests.storage': '10Gi', persistentvolumeclaims: '2', 'count/secrets': '1' },
    used: { 'requests.storage': '8Gi', persistentvolumeclaims: '1', 'count/secrets': '0' }
  })
  t.match(await rejection(core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claim('data', '4Gi') })), {
    code: 403, reason: 'Forbidden',
    message: 'persistentvolumeclaims "data" is forbidden: exceeded quota: tenant, requested: requests.storage=4Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi'
  })
  await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'db' } } })
  t.match(await rejection(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'smtp' } } })), { code: 403, message: /exceeded quota: tenant, requested: count\/secrets=1/ })
})

t.test('pods a deployment cannot create: ReplicaFailure, until the template or the quota allows them', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  await core.createNamespacedResourceQuota({ namespace: NS, body: { metadata: { name: 'compute' }, spec: { hard: { 'limits.cpu': '1', 'limits.memory': '2Gi', 'requests.cpu': '1' } } } })
  const apply = (resources?: Record<string, unknown>, replicas?: number) => apps.patchNamespacedDeployment({
    name: 'web', namespace: NS, body: deploymentManifest(NS, 'web', { resources, replicas }), fieldManager: 'erp-portal'
  }, serverSideApply)

  const created = await apply()
  t.equal(created.metadata?.name, 'web', 'the Deployment itself is accepted')
  const failing = await waitFor(async () => {
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace: NS })
    return d.status?.conditions?.find((c) => c.type === 'ReplicaFailure')
  })
  t.match(failing, { status: 'True', reason: 'FailedCreate', message: /^pods "web-[a-z0-9]{10}-" is forbidden: failed quota: compute: must specify limits\.cpu for: odoo; limits\.memory for: odoo; requests\.cpu for: odoo$/ })
  t.same((await core.listNamespacedPod({ namespace: NS })).items, [], 'no pods')

  await apply(RESOURCES)
  const running = await waitFor(async () => {
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace: NS })
    return d.status?.readyReplicas === 1 && d
  })
  t.equal(running.status?.conditions?.find((c) => c.type === 'ReplicaFailure'), undefined, 'the failure clears')
  t.match((await core.readNamespacedResourceQuota({ name: 'compute', namespace: NS })).status?.used, { 'limits.cpu': '1', 'limits.memory': '2Gi', 'requests.cpu': '500m' })

  await apply(RESOURCES, 2)
  const capped = await waitFor(async () => {
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace: NS })
    return d.status?.conditions?.find((c) => c.type === 'ReplicaFailure')
  })
  t.match(capped.message, /exceeded quota: compute, requested: limits\.cpu=1,limits\.memory=2Gi, used: limits\.cpu=1,limits\.memory=2Gi, limited: limits\.cpu=1,limits\.memory=2Gi/)
  t.equal((await core.listNamespacedPod({ namespace: NS })).items.length, 1, 'the second replica is not created')
  t.same(kube.internalErrors, [])
})
