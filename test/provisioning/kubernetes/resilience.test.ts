/**
 * Retries (429 with Retry-After, 5xx), no retries for other 4xx, bounded calls, and
 * check(): an unreachable or silent API server and refused credentials.
 */
import { createServer, type Socket } from 'node:net'
import t from 'tap'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { createKubernetesBackend, KubernetesApiError } from '../../../provisioning/kubernetes/index.ts'
import { fakeKubeConfig } from '../../support/kube/kubeconfig.ts'
import { instanceSpec, setup } from './setup.ts'

const statuses = (kube: Awaited<ReturnType<typeof setup>>['kube'], method: string, path: string): number[] =>
  kube.requests.filter((r) => r.method === method && r.path === path).map((r) => r.status)

const DEPLOYMENT = '/apis/apps/v1/namespaces/erp-acme/deployments/erp-shop'

t.test('a 429 is retried after its Retry-After, and the provision succeeds', async (t) => {
  const { kube, backend } = await setup(t)
  kube.failNext({ method: 'PATCH', path: DEPLOYMENT, status: 429, retryAfterSeconds: 1 })
  await backend.provision(instanceSpec())
  t.same(statuses(kube, 'PATCH', DEPLOYMENT), [429, 201])
  t.equal(kube.pendingFaults(), 0)
  t.same(kube.internalErrors, [])
})

t.test('503 and 500 are retried; reads too', async (t) => {
  const { kube, backend } = await setup(t)
  kube.failNext({ method: 'PATCH', path: '/secrets/erp-shop-db', status: 500, times: 2 })
  await backend.provision(instanceSpec())
  t.same(statuses(kube, 'PATCH', '/api/v1/namespaces/erp-acme/secrets/erp-shop-db'), [500, 500, 201])

  kube.failNext({ method: 'GET', path: DEPLOYMENT, status: 503, times: 2, retryAfterSeconds: 0 })
  t.not((await backend.observe(instanceSpec())).state, 'missing')
  t.same(statuses(kube, 'GET', DEPLOYMENT), [503, 503, 200])
  t.same(kube.internalErrors, [])
})

t.test('when retries are spent: BackendUnavailableError after 1 + retries attempts', async (t) => {
  const { kube, backend } = await setup(t, {}, { retries: 2 })
  kube.failNext({ method: 'GET', path: DEPLOYMENT, status: 503, times: 10, retryAfterSeconds: 0 })
  const error = await backend.observe(instanceSpec()).catch((e: unknown) => e)
  t.type(error, BackendUnavailableError)
  t.match(error, { backend: 'kubernetes', message: /read Deployment erp-acme\/erp-shop: The server is currently unable to handle the request \(503\)/, hint: /try again later/ })
  t.equal(statuses(kube, 'GET', DEPLOYMENT).length, 3)
  t.same(kube.internalErrors, [])
})

t.test('404 and 422 are not retried; the error carries the Status message', async (t) => {
  const { kube, backend } = await setup(t)
  kube.failNext({ method: 'PATCH', path: '/secrets/erp-shop-db', status: 404, message: 'secrets "erp-shop-db" not found' })
  const notFound = await backend.provision(instanceSpec()).catch((e: unknown) => e)
  t.type(notFound, KubernetesApiError)
  t.match(notFound, { code: 404, reason: 'NotFound', message: 'apply Secret erp-acme/erp-shop-db: secrets "erp-shop-db" not found' })
  t.same(statuses(kube, 'PATCH', '/api/v1/namespaces/erp-acme/secrets/erp-shop-db'), [404])

  const invalid = await backend.provision(instanceSpec({ subdomain: 'books', host: 'Not_A_Host!' })).catch((e: unknown) => e)
  t.type(invalid, KubernetesApiError)
  t.match(invalid, { code: 422, reason: 'Invalid', message: /apply Ingress erp-acme\/erp-books: Ingress.networking.k8s.io "erp-books" is invalid: spec.rules\[0\].host/ })
  t.same(statuses(kube, 'PATCH', '/apis/networking.k8s.io/v1/namespaces/erp-acme/ingresses/erp-books'), [422])
  t.same(kube.internalErrors, [])
})

t.test('check() passes against a working API with one bounded list call', async (t) => {
  const { kube, backend } = await setup(t)
  await backend.check()
  t.match(kube.requests.at(-1), { method: 'GET', path: '/api/v1/namespaces', query: { limit: '1' }, status: 200 })
})

t.test('a wrong token: check() and every operation throw BackendUnavailableError, without retrying', async (t) => {
  const { kube } = await setup(t)
  const backend = createKubernetesBackend({ kubeConfig: kube.makeKubeConfig({ token: 'wrong' }) })
  await t.rejects(backend.check(), { name: 'BackendUnavailableError', message: /list namespaces: Unauthorized \(401\)/, hint: /refused the credentials/ })
  const before = kube.requests.length
  await t.rejects(backend.provision(instanceSpec()), BackendUnavailableError)
  t.equal(kube.requests.length - before, 1, 'one request')
})

t.test('an API server that accepts connections but never answers: check() gives up at its timeout', async (t) => {
  const sockets = new Set<Socket>()
  const silent = createServer((socket) => { sockets.add(socket) })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { for (const s of sockets) s.destroy(); silent.close() })
  const port = (silent.address() as { port: number }).port
  const backend = createKubernetesBackend({ kubeConfig: fakeKubeConfig(`http://127.0.0.1:${port}`, 'token'), callTimeoutMs: 5000, checkTimeoutMs: 200 })

  const error = await backend.check().catch((e: unknown) => e)
  t.type(error, BackendUnavailableError)
  t.match(error, { message: /list namespaces: no answer within 200 ms/, hint: new RegExp(`127\\.0\\.0\\.1:${port}.*too slow or unreachable`) })

  const slow = createKubernetesBackend({ kubeConfig: fakeKubeConfig(`http://127.0.0.1:${port}`, 'token'), callTimeoutMs: 150, retries: 3 })
  const connections = sockets.size
  await t.rejects(slow.observe(instanceSpec()), { name: 'BackendUnavailableError', message: /no answer within 150 ms/ })
  t.equal(sockets.size - connections, 1, 'a timed-out call is not retried: it is bounded')
})

t.test('an unreachable API server (connection refused): BackendUnavailableError naming the address', async (t) => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as { port: number }).port
  await new Promise((resolve) => closed.close(resolve))
  const backend = createKubernetesBackend({ kubeConfig: fakeKubeConfig(`http://127.0.0.1:${port}`, 'token'), retries: 2, retryBaseMs: 5 })
  await t.rejects(backend.check(), { name: 'BackendUnavailableError', message: /list namespaces: fetch failed.*ECONNREFUSED/, hint: new RegExp(`cannot connect to the Kubernetes API at http://127\\.0\\.0\\.1:${port}`) })
})

t.test('connections reset by the server are retried, then reported', async (t) => {
  let connections = 0
  const resetting = createServer((socket) => {
    connections++
    socket.once('data', () => socket.destroy())
  })
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve))
  t.teardown(() => resetting.close())
  const port = (resetting.address() as { port: number }).port
  const backend = createKubernetesBackend({ kubeConfig: fakeKubeConfig(`http://127.0.0.1:${port}`, 'token'), retries: 2, retryBaseMs: 5 })
  await t.rejects(backend.observeAll(['acme']), { name: 'BackendUnavailableError', message: /list Deployments in erp-acme: fetch failed/ })
  t.equal(connections, 3, 'three attempts')
})
