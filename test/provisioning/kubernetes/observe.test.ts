/** observe and observeAll against the simulated deployment controller. */
import t from 'tap'
import { AppsV1Api } from '@kubernetes/client-node'
import { serverSideApply } from '../../support/kube/client-helpers.ts'
import { instanceSpec, QUOTA, setup, TENANT_ID, waitForState } from './setup.ts'

t.test('missing, then starting until the pod is ready, then running', async (t) => {
  const { kube, backend } = await setup(t, { readyDelayMs: 300 })
  const spec = instanceSpec()
  t.same(await backend.observe(spec), { state: 'missing' })
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  const early = await backend.observe(spec)
  t.equal(early.state, 'starting')
  t.match(early.message, /0\/1 replicas available/)
  t.match(early.message, /ContainerCreating/, 'says what the pod waits for')
  t.equal(await backend.erpEndpoint?.(spec), undefined, 'no ERP endpoint before it runs')
  t.same(await waitForState(backend, spec, 'running'), { state: 'running', message: '1/1 replicas available' })
  t.equal(await backend.erpEndpoint?.(spec), `http://erp-${spec.subdomain}.erp-acme.svc:8069`, 'the ERP answers at its Service\'s cluster DNS name')
  t.same(kube.internalErrors, [])
})

t.test('with erpAccess api-proxy the ERP answers at the API server\'s Service proxy, and erpFetch carries the kubeconfig\'s token', async (t) => {
  const { kube, backend } = await setup(t, {}, { erpAccess: 'api-proxy' })
  const spec = instanceSpec()
  await backend.ensureTenant('acme', TENANT_ID, QUOTA)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const endpoint = await backend.erpEndpoint?.(spec)
  t.equal(endpoint, `${kube.url}/api/v1/namespaces/erp-acme/services/erp-${spec.subdomain}:8069/proxy/`)
  const answer = await backend.erpFetch?.(new URL('web/health', endpoint), { method: 'POST', headers: {}, body: '', signal: AbortSignal.timeout(5000) })
  t.equal(answer?.status, 404, 'through the proxy to the ERP (which serves /web/health on GET only), not refused as unauthorised')
  t.equal(kube.requests.at(-1)?.status, 404)
  t.equal(kube.requests.at(-1)?.path, `/api/v1/namespaces/erp-acme/services/erp-${spec.subdomain}:8069/proxy/web/health`)
  t.same(kube.internalErrors, [])
})

t.test('a crash-looping pod is an error at once, with the reason', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  kube.holdNotReady('erp-acme', 'erp-shop')
  await backend.provision(spec)
  const observed = await backend.observe(spec)
  t.equal(observed.state, 'error')
  t.match(observed.message, /pod erp-shop-\w+-\w+: container erp is CrashLoopBackOff: back-off restarting failed container; restarted 3 times/)

  kube.releaseHold('erp-acme', 'erp-shop')
  await waitForState(backend, spec, 'running')
  t.same(kube.internalErrors, [])
})

t.test('an image that cannot be pulled is an error; a pod still being created is not', async (t) => {
  const { kube, backend } = await setup(t)
  kube.holdNotReady('erp-acme', 'erp-bad', { reason: 'ImagePullBackOff' })
  kube.holdNotReady('erp-acme', 'erp-slow', { reason: 'ContainerCreating' })
  await backend.provision(instanceSpec({ subdomain: 'bad' }))
  await backend.provision(instanceSpec({ subdomain: 'slow' }))
  t.match(await backend.observe(instanceSpec({ subdomain: 'bad' })), { state: 'error', message: /ImagePullBackOff/ })
  t.match(await backend.observe(instanceSpec({ subdomain: 'slow' })), { state: 'starting', message: /ContainerCreating/ })
  t.same(kube.internalErrors, [])
})

t.test('a rollout past its progress deadline is an error', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  kube.holdNotReady('erp-acme', 'erp-shop', { reason: 'PodInitializing' })
  await backend.provision(spec)
  // An operator's shorter deadline, under another field manager (the backend leaves the default).
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'erp-shop', namespace: 'erp-acme' }, spec: { progressDeadlineSeconds: 1 } }
  await apps.patchNamespacedDeployment({ name: 'erp-shop', namespace: 'erp-acme', body, fieldManager: 'ops' }, serverSideApply)
  t.equal((await backend.observe(spec)).state, 'starting')
  const failed = await waitForState(backend, spec, 'error', 4000)
  t.match(failed.message, /rollout failed: ReplicaSet "erp-shop-\w+" has timed out progressing/)
  t.same(kube.internalErrors, [])
})

t.test('a pod the quota refuses is an error with the quota message', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.ensureTenant('acme', TENANT_ID, { ...QUOTA, memoryMb: 1024 })
  const spec = instanceSpec()
  await backend.provision(spec)
  t.match(await backend.observe(spec), { state: 'error', message: /cannot create the pod: .*exceeded quota: erp-quota.*limits\.memory/ })
  t.same(kube.internalErrors, [])
})

t.test('observeAll: one Deployment list per tenant namespace; a missing namespace has none', async (t) => {
  const { kube, backend } = await setup(t)
  const shop = instanceSpec({ subdomain: 'shop' })
  const books = instanceSpec({ subdomain: 'books' })
  const web = instanceSpec({ tenantSubdomain: 'globex', subdomain: 'web' })
  kube.holdNotReady('erp-globex', 'erp-web')
  for (const spec of [shop, books, web]) await backend.provision(spec)
  await backend.stop(books)
  kube.seed({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'not-ours', namespace: 'erp-acme', labels: { app: 'x' } }, spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } } })
  await waitForState(backend, shop, 'running')

  const start = kube.requests.length
  const all = await backend.observeAll(['acme', 'globex', 'ghost', 'acme'])
  t.same([...all.keys()].sort(), ['books', 'shop', 'web'], 'only the managed deployments, keyed by instance subdomain')
  t.match(all.get('shop'), { state: 'running' })
  t.match(all.get('books'), { state: 'stopped' })
  t.match(all.get('web'), { state: 'error', message: /CrashLoopBackOff/ })
  const made = kube.requests.slice(start)
  const lists = made.filter((r) => r.path.endsWith('/deployments'))
  t.same(lists.map((r) => r.path).sort(), ['/apis/apps/v1/namespaces/erp-acme/deployments', '/apis/apps/v1/namespaces/erp-ghost/deployments', '/apis/apps/v1/namespaces/erp-globex/deployments'])
  t.ok(lists.every((r) => r.query.labelSelector === 'app.kubernetes.io/name=erp,app.kubernetes.io/managed-by=erp-portal'))
  t.same(made.filter((r) => r.path.endsWith('/pods')).map((r) => r.path), ['/api/v1/namespaces/erp-globex/pods'], 'pods only where something is not rolled out')
  t.equal(made.length, 4)
  t.same(await backend.observeAll([]), new Map())
  t.same(kube.internalErrors, [])
})

t.test('observe reads one Deployment and no pods once rolled out', async (t) => {
  const { kube, backend } = await setup(t)
  const spec = instanceSpec()
  await backend.provision(spec)
  kube.setReady('erp-acme', 'erp-shop')
  const start = kube.requests.length
  t.equal((await backend.observe(spec)).state, 'running')
  t.same(kube.requests.slice(start).map((r) => `${r.method} ${r.path}`), ['GET /apis/apps/v1/namespaces/erp-acme/deployments/erp-shop'])
  t.same(kube.internalErrors, [])
})
