/**
 * The fake kube-apiserver's plumbing, driven by the real @kubernetes/client-node:
 * the KubeConfig, bearer-token auth, discovery (what KubernetesObjectApi needs),
 * fault injection, the request log and the inspection helpers.
 */
import t from 'tap'
import { AppsV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi, VersionApi } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, rejection, statusOf } from './client-helpers.ts'

t.test('the KubeConfig points at the server with a bearer token; nothing else is special', async (t) => {
  const kube = await fakeKubeApiServer(t, { token: 'sekret', namespace: 'erp-acme' })
  t.match(kube.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.equal(kube.kubeConfig.getCurrentCluster()?.server, kube.url)
  t.equal(kube.kubeConfig.getCurrentUser()?.token, 'sekret')
  t.equal(kube.kubeConfig.getContextObject(kube.kubeConfig.currentContext)?.namespace, 'erp-acme')

  const fromText = new KubeConfig()
  fromText.loadFromString(kube.kubeconfigText)
  const version = await fromText.makeApiClient(VersionApi).getCode()
  t.equal(version.major, '1', 'a KubeConfig loaded from the kubeconfig text works the same')
  t.same(kube.internalErrors, [])
})

t.test('auth: no token or a wrong token is a 401 Status, and nothing is done', async (t) => {
  const kube = await fakeKubeApiServer(t)
  const wrong = kube.makeKubeConfig({ token: 'not-the-token' }).makeApiClient(CoreV1Api)
  const error = await rejection(wrong.createNamespace({ body: namespaceManifest('erp-acme') }))
  t.equal(error.code, 401)
  t.equal(kube.get('Namespace', undefined, 'erp-acme'), undefined, 'the create was not carried out')

  const anonymous = await fetch(`${kube.url}/api/v1/namespaces`)
  t.equal(anonymous.status, 401)
  t.same(await anonymous.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
  t.equal((await fetch(`${kube.url}/readyz`)).status, 200, 'health endpoints need no token')
})

t.test('discovery: the documents KubernetesObjectApi resolves kinds with', async (t) => {
  const kube = await fakeKubeApiServer(t)
  const get = async (path: string): Promise<any> => (await fetch(`${kube.url}${path}`, { headers: { authorization: `Bearer ${kube.token}` } })).json()
  t.same((await get('/api')).versions, ['v1'])
  const groups = (await get('/apis')).groups.map((g: { name: string }) => g.name)
  t.same(groups.sort(), ['apps', 'batch', 'networking.k8s.io'])
  const core = await get('/api/v1')
  const byName = Object.fromEntries(core.resources.map((r: { name: string }) => [r.name, r]))
  t.match(byName.namespaces, { kind: 'Namespace', namespaced: false })
  t.match(byName.secrets, { kind: 'Secret', namespaced: true, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update'] })
  t.match(byName['pods/log'], { kind: 'Pod', verbs: ['get'] })
  t.match(byName.pods, { verbs: ['get', 'list'] }, 'pods are read-only here, and discovery says so')
  t.match((await get('/apis/apps/v1')).resources.find((r: { name: string }) => r.name === 'deployments'), { kind: 'Deployment', namespaced: true })
  t.match((await get('/apis/networking.k8s.io/v1')).resources.find((r: { name: string }) => r.name === 'ingresses'), { kind: 'Ingress' })

  const client = KubernetesObjectApi.makeApiClient(kube.kubeConfig)
  const discoveries = (): number => kube.requests.filter((r) => r.path === '/apis/networking.k8s.io/v1').length
  const before = discoveries()
  t.same((await client.list('networking.k8s.io/v1', 'Ingress', 'erp-acme')).items, [], 'Ingress resolves to ingresses')
  await client.list('networking.k8s.io/v1', 'Ingress', 'erp-acme')
  t.same((await client.list('v1', 'PersistentVolumeClaim')).items, [], 'PersistentVolumeClaim resolves to persistentvolumeclaims')
  await t.rejects(client.read({ apiVersion: 'v1', kind: 'Gizmo', metadata: { name: 'g', namespace: 'x' } }), /Unrecognized API version and kind: v1 Gizmo/)
  t.equal(discoveries() - before, 1, 'the client reads a resource list once, then caches it')
  const unknown = await fetch(`${kube.url}/apis/apps/v1/namespaces/x/gizmos`, { headers: { authorization: `Bearer ${kube.token}` } })
  t.equal(unknown.status, 404)
  t.match(await unknown.json(), { kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' })
})

t.test('fault injection: the next matching request answers 429 with Retry-After, then 500, then works', async (t) => {
  const kube = await fakeKubeApiServer(t)
  const core = kube.kubeConfig.makeApiClient(CoreV1Api)
  kube.failNext({ method: 'POST', path: '/api/v1/namespaces', status: 429, retryAfterSeconds: 2 })
  kube.failNext({ method: 'POST', path: /^\/api\/v1\/namespaces$/, status: 500 })
  t.equal(kube.pendingFaults(), 2)

  const throttled = await core.createNamespace({ body: namespaceManifest('erp-acme') }).catch((e: unknown) => e)
  t.equal(statusOf(throttled).code, 429)
  t.match(statusOf(throttled), { reason: 'TooManyRequests', details: { retryAfterSeconds: 2 } })
  t.equal((throttled as { headers: Record<string, string> }).headers['retry-after'], '2', 'Retry-After header, as the client sees it')
  t.match(await rejection(core.createNamespace({ body: namespaceManifest('erp-acme') })), { code: 500, reason: 'InternalError' })
  t.equal(kube.get('Namespace', undefined, 'erp-acme'), undefined, 'failed requests are not carried out')

  await core.createNamespace({ body: namespaceManifest('erp-acme') })
  t.ok(kube.get('Namespace', undefined, 'erp-acme'), 'the third attempt goes through')
  t.equal(kube.pendingFaults(), 0)

  kube.failNext({ path: '/apis/apps/v1/namespaces/erp-acme/deployments', status: 503, times: 2 })
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const readOne = (): Promise<unknown> => apps.listNamespacedDeployment({ namespace: 'erp-acme' })
  t.match(await rejection(readOne()), { code: 503, reason: 'ServiceUnavailable' })
  t.match(await rejection(readOne()), { code: 503 })
  t.same((await apps.listNamespacedDeployment({ namespace: 'erp-acme' })).items, [])
  t.same(kube.requests.filter((r) => r.path.endsWith('/deployments')).map((r) => r.status), [503, 503, 200], 'the request log shows the retries')
})

t.test('inspection: seed, get and list as the API returns objects; the request log records content types', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest('erp-acme'))
  const seeded = kube.seed(deploymentManifest('erp-acme', 'web'))
  t.match(seeded.metadata, { name: 'web', namespace: 'erp-acme', generation: 1, managedFields: [{ manager: 'seed', operation: 'Update' }] })
  t.equal(kube.list('Deployment', 'erp-acme').length, 1)
  t.equal(kube.list('deployments').length, 1, 'kind, plural or short name')
  t.equal(kube.get('deploy', 'erp-acme', 'web')?.metadata?.uid, seeded.metadata?.uid)
  t.equal(kube.list('Pod', 'erp-acme').length, 1, 'the seeded deployment runs a pod')

  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const error = await rejection(apps.patchNamespacedDeployment({ name: 'web', namespace: 'erp-acme', body: { spec: { replicas: 2 } } }))
  t.equal(error.code, 400, 'a merge-style body sent as a JSON patch is a 400, as on a cluster')
  t.match(kube.requests.at(-1), { method: 'PATCH', path: '/apis/apps/v1/namespaces/erp-acme/deployments/web', contentType: 'application/json-patch+json', status: 400 },
    'the generated patch methods send application/json-patch+json unless given other Content-Type options')
  t.same(kube.internalErrors, [])
})
