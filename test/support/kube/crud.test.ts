/**
 * Create, read, list, replace and delete for every kind the backend uses, through the
 * generated clients (CoreV1Api, AppsV1Api, NetworkingV1Api) and through KubernetesObjectApi.
 */
import t, { type Test } from 'tap'
import { AppsV1Api, CoreV1Api, KubernetesObjectApi, NetworkingV1Api, type KubernetesObject } from '@kubernetes/client-node'
import { fakeKubeApiServer, type FakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, rejection } from './client-helpers.ts'

const NS = 'erp-acme'

function manifests (): Array<KubernetesObject & Record<string, any>> {
  const meta = (name: string) => ({ name, namespace: NS, labels: { tenant: 'acme', part: name } })
  return [
    { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('quota'), spec: { hard: { 'requests.storage': '20Gi', pods: '10' } } },
    { apiVersion: 'v1', kind: 'Secret', metadata: meta('db'), type: 'Opaque', data: { password: Buffer.from('s3cret').toString('base64') } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('conf'), data: { 'odoo.conf': '[options]\n' } },
    { apiVersion: 'v1', kind: 'Service', metadata: meta('web'), spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8069 }] } },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('addons-acme'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    { ...deploymentManifest(NS, 'web'), metadata: meta('web') },
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('web'),
      spec: { ingressClassName: 'nginx', rules: [{ host: 'acme.erp.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] }
    }
  ]
}

/** A change to make in a replace, and how to see it. */
function edit (object: Record<string, any>): void {
  object.metadata.annotations = { edited: 'yes' }
}

interface Ops {
  create: (body: any) => Promise<any>
  read: (name: string) => Promise<any>
  list: (labelSelector: string) => Promise<{ items: any[] }>
  replace: (name: string, body: any) => Promise<any>
  remove: (name: string) => Promise<unknown>
}

function typedOps (kube: FakeKubeApiServer): Record<string, Ops> {
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const net = kube.kubeConfig.makeApiClient(NetworkingV1Api)
  const namespace = NS
  return {
    ResourceQuota: { create: (body) => core.createNamespacedResourceQuota({ namespace, body }), read: (name) => core.readNamespacedResourceQuota({ name, namespace }), list: (labelSelector) => core.listNamespacedResourceQuota({ namespace, labelSelector }), replace: (name, body) => core.replaceNamespacedResourceQuota({ name, namespace, body }), remove: (name) => core.deleteNamespacedResourceQuota({ name, namespace }) },
    Secret: { create: (body) => core.createNamespacedSecret({ namespace, body }), read: (name) => core.readNamespacedSecret({ name, namespace }), list: (labelSelector) => core.listNamespacedSecret({ namespace, labelSelector }), replace: (name, body) => core.replaceNamespacedSecret({ name, namespace, body }), remove: (name) => core.deleteNamespacedSecret({ name, namespace }) },
    ConfigMap: { create: (body) => core.createNamespacedConfigMap({ namespace, body }), read: (name) => core.readNamespacedConfigMap({ name, namespace }), list: (labelSelector) => core.listNamespacedConfigMap({ namespace, labelSelector }), replace: (name, body) => core.replaceNamespacedConfigMap({ name, namespace, body }), remove: (name) => core.deleteNamespacedConfigMap({ name, namespace }) },
    Service: { create: (body) => core.createNamespacedService({ namespace, body }), read: (name) => core.readNamespacedService({ name, namespace }), list: (labelSelector) => core.listNamespacedService({ namespace, labelSelector }), replace: (name, body) => core.replaceNamespacedService({ name, namespace, body }), remove: (name) => core.deleteNamespacedService({ name, namespace }) },
    PersistentVolumeClaim: { create: (body) => core.createNamespacedPersistentVolumeClaim({ namespace, body }), read: (name) => core.readNamespacedPersistentVolumeClaim({ name, namespace }), list: (labelSelector) => core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }), replace: (name, body) => core.replaceNamespacedPersistentVolumeClaim({ name, namespace, body }), remove: (name) => core.deleteNamespacedPersistentVolumeClaim({ name, namespace }) },
    Deployment: { create: (body) => apps.createNamespacedDeployment({ namespace, body }), read: (name) => apps.readNamespacedDeployment({ name, namespace }), list: (labelSelector) => apps.listNamespacedDeployment({ namespace, labelSelector }), replace: (name, body) => apps.replaceNamespacedDeployment({ name, namespace, body }), remove: (name) => apps.deleteNamespacedDeployment({ name, namespace }) },
    Ingress: { create: (body) => net.createNamespacedIngress({ namespace, body }), read: (name) => net.readNamespacedIngress({ name, namespace }), list: (labelSelector) => net.listNamespacedIngress({ namespace, labelSelector }), replace: (name, body) => net.replaceNamespacedIngress({ name, namespace, body }), remove: (name) => net.deleteNamespacedIngress({ name, namespace }) }
  }
}

function objectApiOps (kube: FakeKubeApiServer, manifest: KubernetesObject): Ops {
  const client = KubernetesObjectApi.makeApiClient(kube.kubeConfig)
  const spec = (name: string): KubernetesObject => ({ apiVersion: manifest.apiVersion, kind: manifest.kind, metadata: { name, namespace: NS } })
  return {
    create: (body) => client.create(body),
    read: (name) => client.read(spec(name) as any),
    list: (labelSelector) => client.list(manifest.apiVersion ?? '', manifest.kind ?? '', NS, undefined, undefined, undefined, undefined, labelSelector),
    replace: (_name, body) => client.replace(body),
    remove: (name) => client.delete(spec(name))
  }
}

async function lifecycle (t: Test, kube: FakeKubeApiServer, manifest: KubernetesObject & Record<string, any>, ops: Ops): Promise<void> {
  const name = manifest.metadata?.name ?? ''
  const created = await ops.create(structuredClone(manifest))
  t.match(created.metadata, { name, namespace: NS, uid: /^[0-9a-f-]{36}$/, resourceVersion: /^\d+$/ }, 'created, with server-managed metadata')
  t.ok(created.metadata.creationTimestamp instanceof Date, 'creationTimestamp deserialises as a Date')
  t.match(await rejection(ops.create(structuredClone(manifest))), { code: 409, reason: 'AlreadyExists', details: { name } }, 'creating it again: 409 AlreadyExists')

  const read = await ops.read(name)
  t.equal(read.metadata.uid, created.metadata.uid, 'read back')
  t.same((await ops.list(`part=${name}`)).items.map((i) => i.metadata.name), [name], 'listed by label')
  t.same((await ops.list('part=other')).items, [], 'a selector matching nothing lists nothing')

  edit(read)
  const replaced = await ops.replace(name, read)
  t.equal(replaced.metadata.annotations?.edited, 'yes', 'replaced')
  t.not(replaced.metadata.resourceVersion, read.metadata.resourceVersion, 'a change bumps resourceVersion')
  t.equal(replaced.metadata.uid, created.metadata.uid, 'same object')

  await ops.remove(name)
  t.match(await rejection(ops.read(name)), { code: 404, reason: 'NotFound' }, 'gone after delete')
  t.match(await rejection(ops.remove(name)), { code: 404 }, 'deleting again: 404')
  t.same(kube.internalErrors, [])
}

t.test('every kind through the generated clients', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const ops = typedOps(kube)
  for (const manifest of manifests()) {
    await t.test(manifest.kind ?? '', (t) => lifecycle(t, kube, manifest, ops[manifest.kind ?? ''] as Ops))
  }
})

t.test('every kind through KubernetesObjectApi (discovery resolves the paths)', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  for (const manifest of manifests()) {
    await t.test(manifest.kind ?? '', (t) => lifecycle(t, kube, manifest, objectApiOps(kube, manifest)))
  }
})

t.test('namespaces: created with the name label; deleting one terminates it, then its contents and it are gone', async (t) => {
  const kube = await fakeKubeApiServer(t, { namespaceDeletionDelayMs: 300 })
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const created = await core.createNamespace({ body: namespaceManifest(NS, { 'erp.example/tenant': 'acme' }) })
  t.same(created.metadata?.labels, { 'erp.example/tenant': 'acme', 'kubernetes.io/metadata.name': NS }, 'the server adds kubernetes.io/metadata.name')
  t.equal(created.status?.phase, 'Active')
  t.same((await core.listNamespace({ labelSelector: 'erp.example/tenant=acme' })).items.map((n) => n.metadata?.name), [NS])
  await kube.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: NS, body: deploymentManifest(NS, 'web') })
  await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'db' }, stringData: { password: 'x' } } })

  const deleted = await core.deleteNamespace({ name: NS }) as { status?: { phase?: string } }
  t.equal(deleted.status?.phase, 'Terminating', 'DELETE answers the namespace, now Terminating')
  t.equal((await core.readNamespace({ name: NS })).status?.phase, 'Terminating', 'still there for a while')
  t.match(await rejection(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'late' } } })), { code: 403, reason: 'Forbidden', message: /because it is being terminated/ })
  await new Promise((resolve) => setTimeout(resolve, 400))
  t.match(await rejection(core.readNamespace({ name: NS })), { code: 404 })
  t.equal(kube.list('Secret').length + kube.list('Deployment').length + kube.list('Pod').length, 0, 'its contents went with it')
  t.match(await rejection(core.createNamespacedSecret({ namespace: 'nowhere', body: { metadata: { name: 'x' } } })), { code: 404, message: 'namespaces "nowhere" not found' })
})

t.test('bare pods: created (generateName, defaults), read, deleted; other writes to pods are refused', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const created = await core.createNamespacedPod({ namespace: NS, body: { metadata: { generateName: 'p-' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1' }] } } })
  const name = created.metadata?.name ?? ''
  t.match(name, /^p-[a-z0-9]{5}$/)
  t.match(created, { spec: { restartPolicy: 'Never', dnsPolicy: 'ClusterFirst', containers: [{ imagePullPolicy: 'IfNotPresent' }] }, status: { phase: 'Pending' } })
  t.equal(created.status?.podIP, undefined, 'no IP while Pending')
  t.match(await core.readNamespacedPod({ name, namespace: NS }), { status: { phase: 'Running', conditions: [{ type: 'PodScheduled' }, { type: 'Initialized' }, { type: 'ContainersReady', status: 'True' }, { type: 'Ready', status: 'True' }] } })
  t.match(await rejection(core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'q' }, spec: { restartPolicy: 'Sometimes', containers: [{ name: 'c', image: 'busybox:1' }] } } as never })), { code: 422, reason: 'Invalid' })
  t.match(await rejection(core.replaceNamespacedPod({ name, namespace: NS, body: created })), { code: 405, reason: 'MethodNotAllowed', message: /read-only/ })
  t.match(await core.deleteNamespacedPod({ name, namespace: NS }), { metadata: { name, deletionTimestamp: Date } }, 'the Pod is answered, marked deleted')
  t.match(await rejection(core.readNamespacedPod({ name, namespace: NS })), { code: 404, message: `pods "${name}" not found` })
  t.match(await rejection(core.deleteNamespacedPod({ name, namespace: NS })), { code: 404 })
  t.same(kube.internalErrors, [])
})
