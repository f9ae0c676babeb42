/**
 * The Service proxy subresource as the API server answers it, reached with the production code's
 * kubeconfig-authenticated fetch: 401 without the token, 404 Status for a missing Service, 503
 * Status while no ready pod backs it or for a port it does not have; behind it, the ERP double
 * keeps admin/admin until the password is written (strict like Odoo).
 */
import t from 'tap'
import { AppsV1Api } from '@kubernetes/client-node'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, serverSideApply, waitFor } from './client-helpers.ts'
import { kubeAuthenticatedFetch } from '../../../provisioning/kubernetes/erp-access.ts'
import { callOdoo, ErpFault } from '../../../provisioning/erp/odoo-rpc.ts'
import { createOdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'

const NS = 'erp-acme'

t.test('the proxy answers like the API server, and the ERP behind it is strict', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 200 })
  kube.seed(namespaceManifest(NS))
  const proxy = (service: string) => `${kube.url}/api/v1/namespaces/${NS}/services/${service}/proxy/`
  const fetchWithToken = kubeAuthenticatedFetch(kube.kubeConfig)
  const post = async (url: string, fetcher = fetchWithToken) => fetcher(new URL('jsonrpc', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(5000) })

  const anonymous = await post(proxy('web:8069'), async (url, init) => fetch(url, init))
  t.equal(anonymous.status, 401, 'the proxy is an API request: it needs the credentials')
  const missing = await post(proxy('web:8069'))
  t.match({ status: missing.status, body: await missing.json() }, { status: 404, body: { kind: 'Status', reason: 'NotFound', message: 'services "web" not found' } })

  kube.seed({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 8069 }] } })
  const noPods = await post(proxy('web:8069'))
  t.match({ status: noPods.status, body: await noPods.json() }, { status: 503, body: { kind: 'Status', reason: 'ServiceUnavailable', message: 'no endpoints available for service "web:8069"' } })

  await kube.kubeConfig.makeApiClient(AppsV1Api).patchNamespacedDeployment({ name: 'web', namespace: NS, body: deploymentManifest(NS, 'web'), fieldManager: 'test', force: true }, serverSideApply)
  const target = { endpoint: proxy('web:8069'), timeoutMs: 5000, fetch: fetchWithToken }
  await waitFor(async () => (await post(proxy('web:8069'))).status !== 503)
  t.equal((await post(proxy('web:9999'))).status, 503, 'a port the Service does not have')
  t.equal(await callOdoo(target, 'common', 'authenticate', ['db1', 'admin', 'admin', {}]), 2, 'a fresh database: admin/admin')
  t.equal(await callOdoo({ ...target, endpoint: proxy('http:web:http') }, 'common', 'authenticate', ['db1', 'admin', 'other', {}]), false, 'scheme and port name accepted; a wrong password is refused')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', ['db1', 2, 'wrong', 'res.users', 'write', [[2], { password: 'x' }]]), new ErpFault('odoo.exceptions.AccessDenied', 'Access Denied'))

  await createOdooAdapter({ ...target, database: 'db1', adminPassword: 'generated-1' }).setAdminPassword()
  t.equal(kube.erp.adminPassword(NS, 'web', 'db1'), 'generated-1')
  t.equal(await callOdoo(target, 'common', 'authenticate', ['db1', 'admin', 'admin', {}]), false, 'admin/admin no longer')
  t.equal(kube.erp.adminPassword(NS, 'web', 'db2'), 'admin', 'per database')

  kube.erp.setAnswering(NS, 'web', false)
  const down = await post(proxy('web:8069'))
  t.match({ status: down.status, body: await down.json() }, { status: 503, body: { kind: 'Status', message: /^error trying to reach service: dial tcp .*:8069: connect: connection refused$/ } })
  t.same(kube.internalErrors, [])
})
