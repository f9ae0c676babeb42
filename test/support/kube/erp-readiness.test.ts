/**
 * The ERP behind the fake's Services fails where real Odoo 17 fails: a pod whose readiness probe
 * reads /web/health never turns ready while its configured database (db_name) is not initialised,
 * and turns ready once a first-start Job (`odoo -d <db> -i base --stop-after-init`) or a restore
 * Job has filled it; without a health probe the pod is ready and /jsonrpc answers the HTML 500
 * page; a module install takes its time, then the registry reload answers nothing and readiness fails.
 */
import t from 'tap'
import { fakeKubeApiServer } from './fake-api-server.ts'
import { deploymentManifest, namespaceManifest, sleep, waitFor } from './client-helpers.ts'
import { kubeAuthenticatedFetch } from '../../../provisioning/kubernetes/erp-access.ts'
import { ErpDatabaseNotInitialised, ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'
import { createOdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'

const NS = 'erp-acme'
const conf = (db: string) => Buffer.from(`[options]\nadmin_passwd = x\ndb_name = ${db}\nlist_db = False\n`).toString('base64')

function erpDeployment (name: string, db: string, probe: 'health' | 'tcp') {
  const manifest = deploymentManifest(NS, name)
  const readinessProbe = probe === 'health' ? { httpGet: { path: '/web/health', port: 8069 } } : { tcpSocket: { port: 8069 } }
  Object.assign(manifest.spec.template.spec, { volumes: [{ name: 'config', secret: { secretName: `${name}-config` } }] })
  Object.assign(manifest.spec.template.spec.containers[0] ?? {}, { readinessProbe, volumeMounts: [{ name: 'config', mountPath: '/etc/odoo' }] })
  return [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-config`, namespace: NS }, data: { 'odoo.conf': conf(db) } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS }, spec: { selector: { app: name }, ports: [{ name: 'http', port: 8069 }] } },
    manifest
  ]
}

const initJob = (name: string, db: string) => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: NS },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'init', image: 'odoo:17.0', command: ['/entrypoint.sh', 'odoo', '-d', db, '-i', 'base', '--without-demo=all', '--stop-after-init'] }] } } }
})

t.test('readiness follows the database: not ready until -i base has run, then ready and answering', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 50 })
  kube.seed(namespaceManifest(NS))
  for (const object of erpDeployment('erp-a', 'db_a', 'health')) kube.seed(object)
  const health = async () => (await fetch(`${kube.url}/api/v1/namespaces/${NS}/services/erp-a:8069/proxy/web/health`, { headers: { authorization: `Bearer ${kube.token}` }, signal: AbortSignal.timeout(5000) })).status
  await sleep(150)
  t.equal(kube.get('Deployment', NS, 'erp-a')?.status?.readyReplicas, undefined, 'its pod is not ready on an empty database')
  t.equal(await health(), 503, 'so the Service has no endpoint')
  kube.setReady(NS, 'erp-a')
  t.equal(kube.get('Deployment', NS, 'erp-a')?.status?.readyReplicas, undefined, 'not even when forced: the probe fails')
  t.equal(kube.erp.initialised('db_a'), false)
  const [pod] = kube.list('Pod', NS).filter((p: any) => p.metadata.name.startsWith('erp-a-')) as any[]
  t.match(pod?.status, { phase: 'Running', conditions: [{}, {}, {}, { type: 'Ready', status: 'False' }], containerStatuses: [{ ready: false, state: { running: {} } }] }, 'its container runs, its readiness fails')

  kube.seed(initJob('erp-a-init', 'db_a'))
  await waitFor(async () => kube.list('Pod', NS).some((p: any) => p.metadata.name.startsWith('erp-a-init-') && p.status.phase === 'Running'))
  kube.completeJob(NS, 'erp-a-init')
  t.equal(kube.erp.initialised('db_a'), true, 'the first-start Job filled the database')
  await waitFor(async () => kube.get('Deployment', NS, 'erp-a')?.status?.readyReplicas === 1)
  t.equal(await health(), 200, 'ready, and /web/health passes')
  t.same(kube.internalErrors, [])
})

t.test('without a health probe the pod is ready, and an uninitialised database answers the HTML 500 page', async (t) => {
  const kube = await fakeKubeApiServer(t)
  kube.seed(namespaceManifest(NS))
  for (const object of erpDeployment('erp-b', 'db_b', 'tcp')) kube.seed(object)
  await waitFor(async () => kube.get('Deployment', NS, 'erp-b')?.status?.readyReplicas === 1)
  const fetcher = kubeAuthenticatedFetch(kube.kubeConfig)
  const response = await fetcher(new URL(`${kube.url}/api/v1/namespaces/${NS}/services/erp-b:8069/proxy/jsonrpc`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service: 'common', method: 'version', args: [] } }), signal: AbortSignal.timeout(5000) })
  t.equal(response.status, 500)
  t.match(response.headers.get('content-type'), /^text\/html/)
  t.match(await response.text(), /Internal Server Error/)
  const erp = createOdooAdapter({ endpoint: `${kube.url}/api/v1/namespaces/${NS}/services/erp-b:8069/proxy/`, timeoutMs: 5000, fetch: fetcher, database: 'db_b', adminPassword: 'admin' })
  await t.rejects(erp.listModules(['contacts']), ErpDatabaseNotInitialised, 'the control plane reads it as a database not initialised')
  t.same(kube.internalErrors, [])
})

t.test('a module install takes its time, then the reload answers nothing and readiness fails', async (t) => {
  const kube = await fakeKubeApiServer(t, { erpTiming: { installMs: 400, reloadMs: 600 } })
  kube.seed(namespaceManifest(NS))
  kube.erp.initialise('db_c')
  for (const object of erpDeployment('erp-c', 'db_c', 'health')) kube.seed(object)
  await waitFor(async () => kube.get('Deployment', NS, 'erp-c')?.status?.readyReplicas === 1)
  const fetcher = kubeAuthenticatedFetch(kube.kubeConfig)
  const erp = createOdooAdapter({ endpoint: `${kube.url}/api/v1/namespaces/${NS}/services/erp-c:8069/proxy/`, timeoutMs: 5000, fetch: fetcher, database: 'db_c', adminPassword: 'admin' })
  const [contacts] = await erp.listModules(['contacts'])
  t.match(contacts, { name: 'contacts', state: 'uninstalled' })
  const started = Date.now()
  const install = erp.installModule(contacts?.id ?? 0)
  await sleep(150)
  t.match(await erp.listModules(['contacts', 'mail']), [{ name: 'mail', state: 'to install' }, { name: 'contacts', state: 'to install' }], 'during the install: to install, dependencies too')
  t.equal(kube.get('Deployment', NS, 'erp-c')?.status?.readyReplicas, 1, 'still ready while it installs')
  await waitFor(async () => kube.get('Deployment', NS, 'erp-c')?.status?.readyReplicas === undefined, { timeoutMs: 2000 })
  t.ok(Date.now() - started >= 400, 'the reload comes after the install time')
  await t.rejects(erp.listModules(['contacts']), ErpUnreachable, 'the reload answers nothing')
  t.match(kube.list('Pod', NS).map((p: any) => p.status), [{ phase: 'Running', containerStatuses: [{ ready: false, state: { running: {} } }] }], 'the pod runs on, not ready')
  await install
  t.ok(Date.now() - started >= 1000, 'the install call answers after the install and the reload')
  await waitFor(async () => kube.get('Deployment', NS, 'erp-c')?.status?.readyReplicas === 1)
  t.match(await erp.listModules(['contacts', 'mail']), [{ name: 'mail', state: 'installed' }, { name: 'contacts', state: 'installed' }])
  t.same(kube.internalErrors, [])
})
