/**
 * Failures as the client sees them: ApiException with `code` and the Status in `body`
 * (a JSON string), for 404, 409 (AlreadyExists, Conflict on a stale resourceVersion),
 * 422 (validation, immutable fields) and 400 (undecodable bodies).
 */
import t from 'tap'
import { ApiException, AppsV1Api, CoreV1Api, KubernetesObjectApi, NetworkingV1Api } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, rejection } from './client-helpers.ts'

const NS = 'erp-acme'

t.test('404 and 409 AlreadyExists carry the Status, as ApiException code + body', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const missing = await apps.readNamespacedDeployment({ name: 'web', namespace: NS }).catch((e: unknown) => e)
  t.ok(missing instanceof ApiException)
  t.equal((missing as ApiException<unknown>).code, 404)
  t.equal(typeof (missing as ApiException<unknown>).body, 'string', 'client-node 2.x leaves the Status as a JSON string in body')
  t.same(JSON.parse((missing as ApiException<string>).body), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'deployments.apps "web" not found', reason: 'NotFound', code: 404, details: { name: 'web', group: 'apps', kind: 'deployments' }
  })
  const objects = KubernetesObjectApi.makeApiClient(kube.kubeConfig)
  t.match(await rejection(objects.read({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: NS } })), { code: 404, message: 'secrets "db" not found', details: { name: 'db', kind: 'secrets' } })

  await apps.createNamespacedDeployment({ namespace: NS, body: deploymentManifest(NS, 'web') })
  t.match(await rejection(apps.createNamespacedDeployment({ namespace: NS, body: deploymentManifest(NS, 'web') })), {
    code: 409, reason: 'AlreadyExists', message: 'deployments.apps "web" already exists', details: { name: 'web', group: 'apps', kind: 'deployments' }
  })
})

t.test('replace with a stale resourceVersion: 409 Conflict; without one: unconditional', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const first = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'conf' }, data: { a: '1' } } })
  const second = await core.replaceNamespacedConfigMap({ name: 'conf', namespace: NS, body: { ...first, data: { a: '2' } } })
  t.not(second.metadata?.resourceVersion, first.metadata?.resourceVersion)
  t.match(await rejection(core.replaceNamespacedConfigMap({ name: 'conf', namespace: NS, body: { ...first, data: { a: '3' } } })), {
    code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "conf": the object has been modified; please apply your changes to the latest version and try again'
  })
  const unconditional = await core.replaceNamespacedConfigMap({ name: 'conf', namespace: NS, body: { metadata: { name: 'conf' }, data: { a: '4' } } })
  t.same(unconditional.data, { a: '4' })
  const same = await core.replaceNamespacedConfigMap({ name: 'conf', namespace: NS, body: unconditional })
  t.equal(same.metadata?.resourceVersion, unconditional.metadata?.resourceVersion, 'a replace that changes nothing keeps the resourceVersion')
  t.match(await rejection(core.replaceNamespacedConfigMap({ name: 'other', namespace: NS, body: unconditional })), { code: 400, message: /does not match the name on the URL/ })
  t.match(await rejection(core.deleteNamespacedConfigMap({ name: 'conf', namespace: NS, body: { preconditions: { resourceVersion: '1' } } })), { code: 409, message: /Precondition failed/ })
})

t.test('validation: 422 Invalid with causes; undecodable values 400', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const net = kube.kubeConfig.makeApiClient(NetworkingV1Api)
  const valid = deploymentManifest(NS, 'web')
  const invalid = async (body: any) => rejection(apps.createNamespacedDeployment({ namespace: NS, body }))

  const { selector: _selector, ...noSelector } = valid.spec
  t.match(await invalid({ ...valid, spec: noSelector }), {
    code: 422, reason: 'Invalid', message: 'Deployment.apps "web" is invalid: spec.selector: Required value',
    details: { name: 'web', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueRequired', field: 'spec.selector' }] }
  })
  t.match(await invalid({ ...valid, spec: { ...valid.spec, template: { ...valid.spec.template, spec: {} } } }), { code: 422, message: /spec\.template\.spec\.containers: Required value/ })
  t.match(await invalid({ ...valid, spec: { ...valid.spec, template: { ...valid.spec.template, spec: { containers: [] } } } }), { code: 422, message: /spec\.template\.spec\.containers: Required value/ })
  t.match(await invalid({ ...valid, spec: { ...valid.spec, selector: { matchLabels: { app: 'other' } } } }), { code: 422, message: /`selector` does not match template `labels`/ })
  t.match(await invalid({ ...valid, metadata: { name: 'Web_App' } }), { code: 422, message: /metadata\.name: Invalid value: "Web_App"/ })
  t.match(await invalid({ ...valid, metadata: { name: 'web', labels: { tenant: 'acme corp' } } }), { code: 422, message: /metadata\.labels: Invalid value: "acme corp"/ })
  const mount = structuredClone(valid) as any
  mount.spec.template.spec.containers[0].volumeMounts = [{ name: 'addons', mountPath: '/mnt/extra-addons' }]
  t.match(await invalid(mount), { code: 422, message: /volumeMounts\[0\]\.name: Not found: "addons"/ }, 'a mount without its volume')
  t.match(await invalid({ ...valid, spec: { ...valid.spec, replicas: 'one' } }), { code: 400, reason: 'BadRequest', message: /cannot be handled as a Deployment/ }, 'a wrong type does not decode: 400')
  t.equal(kube.list('Deployment').length, 0, 'nothing invalid was stored')

  t.match(await rejection(core.createNamespacedService({ namespace: NS, body: { metadata: { name: '1web' }, spec: { ports: [{ port: 80 }] } } })), { code: 422, message: /DNS-1035 label/ })
  t.match(await rejection(core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: { metadata: { name: 'addons-acme' }, spec: { resources: { requests: { storage: '1Gi' } } } } })), { code: 422, message: /spec\.accessModes: Required value/ })
  t.match(await rejection(core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'db' }, data: { password: 'not base64!' } } })), { code: 400 })
  const ingress = { metadata: { name: 'web' }, spec: { rules: [{ host: 'acme.example', http: { paths: [{ path: 'nope', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } }
  t.match(await rejection(net.createNamespacedIngress({ namespace: NS, body: ingress })), { code: 422, message: /paths\[0\]\.path: Invalid value: "nope": must be an absolute path/ })
})

t.test('immutable fields: 422 on update', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  const created = await apps.createNamespacedDeployment({ namespace: NS, body: deploymentManifest(NS, 'web') })
  t.match(await rejection(apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: created })), { code: 409 },
    'the create response is already stale: the deployment controller has written status since')
  const moved = await apps.readNamespacedDeployment({ name: 'web', namespace: NS })
  moved.spec!.selector = { matchLabels: { app: 'web', v: '2' } }
  moved.spec!.template.metadata!.labels = { app: 'web', v: '2' }
  t.match(await rejection(apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: moved })), { code: 422, message: /spec\.selector: Invalid value: .*field is immutable/ })

  const claim = await core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: { metadata: { name: 'addons-acme' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } } })
  t.equal(claim.spec?.storageClassName, 'standard', 'the default storage class is filled in')
  const bound = await core.readNamespacedPersistentVolumeClaim({ name: 'addons-acme', namespace: NS })
  t.equal(bound.status?.phase, 'Bound')
  const grow = structuredClone(bound)
  grow.spec!.resources!.requests = { storage: '5Gi' }
  t.same((await core.replaceNamespacedPersistentVolumeClaim({ name: 'addons-acme', namespace: NS, body: grow })).spec?.resources?.requests, { storage: '5Gi' }, 'growing a claim is allowed')
  const shrink = structuredClone(grow)
  delete shrink.metadata!.resourceVersion
  shrink.spec!.resources!.requests = { storage: '1Gi' }
  t.match(await rejection(core.replaceNamespacedPersistentVolumeClaim({ name: 'addons-acme', namespace: NS, body: shrink })), { code: 422, message: /can not be less than previous value/ })
  const otherClass = structuredClone(grow)
  delete otherClass.metadata!.resourceVersion
  otherClass.spec!.storageClassName = 'fast'
  t.match(await rejection(core.replaceNamespacedPersistentVolumeClaim({ name: 'addons-acme', namespace: NS, body: otherClass })), { code: 422, message: /spec is immutable after creation/ })
})

t.test('watch is refused plainly rather than half-implemented', async (t) => {
  const kube = await fakeKubeApiServer(t)
  const response = await fetch(`${kube.url}/api/v1/namespaces?watch=true`, { headers: { authorization: `Bearer ${kube.token}` } })
  t.equal(response.status, 405)
  t.match(await response.json(), { message: /watch is not implemented by the fake/ })
})
