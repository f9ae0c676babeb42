import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { AppsV1Api } from '@kubernetes/client-node'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, databaseExists, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { fakeKubeApiServer, type FakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'
import { mergePatch } from '../../../support/kube/client-helpers.ts'

/** The whole app on the fake Kubernetes API server: only KUBECONFIG differs from production. */
async function kubeApp (t: Test) {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 200, jobRunMs: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const kubeconfig = join(dir, 'config')
  writeFileSync(kubeconfig, kube.kubeconfigText)
  const { app, databaseUrl } = await build(t, {
    env: { KUBECONFIG: kubeconfig, INSTANCE_BACKENDS: 'kubernetes', INSTANCES_DOMAIN: 'erp.test', RECONCILE_SECONDS: 3600, INSTANCE_JOB_RETRIES: 1, INSTANCE_ERROR_GRACE_SECONDS: 3 }
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const namespace = `erp-${admin.subdomain}`
  const api = {
    create: (subdomain: string) => app.inject({
      method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
      payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'kubernetes' }
    }),
    post: (id: number, action: string) => app.inject({ method: 'POST', url: `/api/instances/${id}/${action}`, headers: bearer(admin.token) }),
    remove: (id: number) => app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) }),
    detail: async (id: number) => (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance,
    status: async (id: number) => (await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })).json(),
    waitFor: (id: number, states: string[], timeoutMs?: number) => waitForState(app, admin.token, id, states, timeoutMs),
    activities: async (id: number) => (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [id] })).map((r) => r.type)
  }
  return { kube, app, databaseUrl, admin, namespace, api }
}

const decoded = (value: unknown): string => Buffer.from(String(value), 'base64').toString('utf8')
const podNames = (kube: FakeKubeApiServer, namespace: string): string[] => kube.list('Pod', namespace).map((p) => String(p.metadata?.name))
const instanceObjects = (namespace: string, subdomain: string): Array<[string, string, string]> => [
  ['Secret', namespace, `erp-${subdomain}-db`],
  ['PersistentVolumeClaim', namespace, `erp-${subdomain}-data`],
  ['Deployment', namespace, `erp-${subdomain}`],
  ['Service', namespace, `erp-${subdomain}`],
  ['Ingress', namespace, `erp-${subdomain}`]
]

function assertTenantObjects (t: Test, kube: FakeKubeApiServer, tenant: { subdomain: string, tenantId: string }): void {
  const namespace = `erp-${tenant.subdomain}`
  t.equal(kube.get('Namespace', undefined, namespace)?.metadata?.labels?.['erp.portal/tenant-id'], tenant.tenantId, 'the tenant\'s namespace')
  // No subscription yet: room for one small instance (1 GB, one core, 10 GB) plus the 5 GB addons claim,
  // the 20 GB backup claim, one backup Job (512 MiB, half a core) and two download readers (64 MiB, 200m each).
  t.same(kube.get('ResourceQuota', namespace, 'erp-quota')?.spec?.hard,
    { 'limits.memory': '1664Mi', 'limits.cpu': '1900m', 'requests.storage': '35Gi', 'count/deployments.apps': '1' }, 'the quota follows the subscription')
  const addons = kube.get('PersistentVolumeClaim', namespace, `addons-${tenant.subdomain}`)
  t.same(addons?.spec?.accessModes, ['ReadWriteMany'], 'the addons claim, shared by the tenant\'s instances')
}

t.test('an instance is created, runs, stops, starts, restarts and is deleted on Kubernetes', async (t) => {
  const { kube, app, databaseUrl, admin, namespace, api } = await kubeApp(t)
  const subdomain = uniqueSubdomain('kube')
  const name = `erp-${subdomain}`
  const created = await api.create(subdomain)
  t.equal(created.statusCode, 202, created.body)
  const { id, state } = created.json().instance
  t.equal(state, 'provisioning')

  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  const detail = await api.detail(id)
  t.match(detail, { state: 'running', status: 'running', backend: 'kubernetes', url: `https://${subdomain}.erp.test`, version: 'odoo:17.0', status_message: null, memory: 1024, cpu: 1, storage: 10 })
  const uid = await instanceUid(app, id)
  const dbName = `erp_${uid.replaceAll('-', '')}`
  t.equal(detail.database_name, dbName)
  t.ok(await databaseExists(databaseUrl, dbName), 'the instance has its own database on the server')

  assertTenantObjects(t, kube, { subdomain: admin.subdomain, tenantId: admin.user.tenant_id })
  for (const [kind, ns, object] of instanceObjects(namespace, subdomain)) t.ok(kube.get(kind, ns, object), `${kind} ${object}`)
  const secret = kube.get('Secret', namespace, `${name}-db`)
  t.equal(decoded(secret?.data?.USER), dbName, 'the Secret holds the instance\'s database login')
  t.equal(decoded(secret?.data?.ERP_DATABASE), dbName)
  t.ok(decoded(secret?.data?.PASSWORD).length > 0, 'and a password')
  const config = decoded(kube.get('Secret', namespace, `${name}-config`)?.data?.['odoo.conf'])
  t.match(config, /^admin_passwd = [A-Za-z0-9_-]{32}$/m, 'the server configuration holds a generated master password')
  t.match(config, /^list_db = False$/m, 'and no database manager')
  t.equal(kube.get('Job', namespace, `${name}-init`), undefined, 'the database initialisation Job ran and was deleted')
  const [initialised] = await app.sql<{ initialised: boolean }>({ text: 'SELECT initialised_at IS NOT NULL AS initialised FROM instance_erp_credentials WHERE instance_id = $1', values: [id] })
  t.equal(initialised?.initialised, true, 'recorded: later starts do not initialise again')
  const deployment = kube.get('Deployment', namespace, name)
  t.equal(deployment?.spec?.replicas, 1)
  t.equal(deployment?.metadata?.labels?.['erp.portal/instance-id'], uid, 'the label carries the uid')
  const container = deployment?.spec?.template?.spec?.containers?.[0]
  t.match(container, { image: 'odoo:17.0', resources: { limits: { memory: '1Gi', cpu: '1' } }, envFrom: [{ secretRef: { name: `${name}-db` } }] })
  t.equal(kube.get('Service', namespace, name)?.spec?.selector?.['app.kubernetes.io/instance'], subdomain)
  const ingress = kube.get('Ingress', namespace, name)
  t.equal(ingress?.spec?.rules?.[0]?.host, `${subdomain}.erp.test`)
  t.same(ingress?.spec?.tls?.[0]?.hosts, [`${subdomain}.erp.test`])

  const stop = await api.post(id, 'stop')
  t.equal(stop.statusCode, 202)
  t.equal(stop.json().instance.state, 'stopping')
  t.equal((await api.waitFor(id, ['stopped', 'error'])).state, 'stopped')
  t.equal(kube.get('Deployment', namespace, name)?.spec?.replicas, 0, 'stopped: scaled to 0')
  t.same(kube.list('Pod', namespace), [], 'no pod left')
  t.equal((await api.post(id, 'stop')).statusCode, 200, 'stop on stopped is a no-op')

  t.equal((await api.post(id, 'start')).statusCode, 202)
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  t.equal(kube.get('Deployment', namespace, name)?.spec?.replicas, 1, 'started: scaled back to 1')
  t.notOk(kube.get('Deployment', namespace, name)?.spec?.template?.metadata?.annotations?.['erp.portal/restartedAt'], 'no restart yet')

  const podsBefore = podNames(kube, namespace)
  t.equal(podsBefore.length, 1, 'one pod runs')
  t.equal((await api.post(id, 'restart')).statusCode, 202)
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  const stamp = kube.get('Deployment', namespace, name)?.spec?.template?.metadata?.annotations?.['erp.portal/restartedAt']
  t.ok(stamp !== undefined && !Number.isNaN(Date.parse(stamp)), `the pod template has the restartedAt annotation (${stamp})`)
  const podsAfter = podNames(kube, namespace)
  t.equal(podsAfter.length, 1)
  t.not(podsAfter[0], podsBefore[0], 'a new pod replaced the old one')

  const removal = await api.remove(id)
  t.equal(removal.statusCode, 202)
  t.equal(removal.json().instance.state, 'deleting')
  t.equal((await api.waitFor(id, ['deleted', 'error'])).state, 'deleted')
  for (const [kind, ns, object] of instanceObjects(namespace, subdomain)) t.equal(kube.get(kind, ns, object), undefined, `${kind} ${object} removed`)
  t.ok(kube.get('Namespace', undefined, namespace), 'the tenant\'s namespace stays')
  t.ok(kube.get('PersistentVolumeClaim', namespace, `addons-${admin.subdomain}`), 'and its addons claim')
  t.notOk(await databaseExists(databaseUrl, dbName), 'the database is dropped')
  t.equal((await api.remove(id)).statusCode, 200, 'deleting again is a no-op')

  t.same(await api.activities(id), ['instance.created', 'instance.running', 'instance.stopping', 'instance.stopped', 'instance.starting', 'instance.running',
    'instance.restarting', 'instance.running', 'instance.deleting', 'instance.deleted'], 'every transition is in the activity feed')
  t.same(kube.internalErrors, [])
})

t.test('a Deployment that never gets ready leaves the instance in error, with the reason', async (t) => {
  const { kube, namespace, api } = await kubeApp(t)
  const subdomain = uniqueSubdomain('crash')
  kube.holdNotReady(namespace, `erp-${subdomain}`) // CrashLoopBackOff, before the Deployment exists
  const created = await api.create(subdomain)
  t.equal(created.statusCode, 202, created.body)
  const { id } = created.json().instance

  // Two attempts (INSTANCE_JOB_RETRIES=1), each giving up after the error grace period (INSTANCE_ERROR_GRACE_SECONDS=3).
  t.equal((await api.waitFor(id, ['running', 'error'], 90_000)).state, 'error')
  const detail = await api.detail(id)
  t.equal(detail.status, 'error')
  t.match(detail.status_message, /Not running in time: the backend reports error/)
  t.match(detail.status_message, /CrashLoopBackOff/, 'the pod\'s reason reaches the API')
  t.same(await api.activities(id), ['instance.created', 'instance.error'])

  kube.releaseHold(namespace, `erp-${subdomain}`)
  t.equal((await api.post(id, 'start')).statusCode, 202, 'an instance in error can be started again')
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  t.equal((await api.detail(id)).status_message, null, 'the error message is cleared')
  t.same(kube.internalErrors, [])
})

t.test('the reconciler records drift: scaled to 0 behind our back is stopped, a deleted Deployment is an error', async (t) => {
  const { kube, app, namespace, api } = await kubeApp(t)
  const apps = kube.kubeConfig.makeApiClient(AppsV1Api)
  const subdomain = uniqueSubdomain('drift')
  const name = `erp-${subdomain}`
  const { id } = (await api.create(subdomain)).json().instance
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  t.equal((await api.detail(id)).last_sync, null, 'never compared yet')

  const before = await api.status(id)
  const quiet = await app.instances.reconcileNow()
  t.same(quiet, { checked: 1, corrected: 0, unreachable: [], abandoned: 0 }, 'nothing changed: nothing corrected')
  t.same(await api.status(id), before, 'state, status and updated_at untouched')
  t.match((await api.detail(id)).last_sync, /^\d{4}-\d\d-\d\d \d\d:\d\d$/, 'but the comparison is recorded')
  t.same(await api.activities(id), ['instance.created', 'instance.running'], 'and nothing is added to the feed')

  await apps.patchNamespacedDeploymentScale({ name, namespace, body: { spec: { replicas: 0 } } }, mergePatch)
  t.match(await app.instances.reconcileNow(), { checked: 1, corrected: 1 })
  t.match(await api.detail(id), { state: 'stopped', status: 'stopped', status_message: null })

  t.equal((await api.post(id, 'start')).statusCode, 202)
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  t.equal(kube.get('Deployment', namespace, name)?.spec?.replicas, 1, 'start takes replicas back')

  await apps.deleteNamespacedDeployment({ name, namespace })
  t.match(await app.instances.reconcileNow(), { checked: 1, corrected: 1 })
  const broken = await api.detail(id)
  t.match(broken, { state: 'error', status: 'error' })
  t.match(broken.status_message, /gone from the backend/)
  const types = await api.activities(id)
  t.same(types.slice(-4), ['instance.stopped', 'instance.starting', 'instance.running', 'instance.error'], 'each correction is in the feed')
  const [error] = await app.sql<{ title: string }>({ text: "SELECT title FROM activities WHERE instance_id = $1 AND type = 'instance.error'", values: [id] })
  t.match(error?.title, /reconciler/, 'saying who found it')

  t.same(await app.instances.reconcileNow(), { checked: 1, corrected: 0, unreachable: [], abandoned: 0 }, 'a second round changes nothing more')
  t.equal((await api.post(id, 'start')).statusCode, 202, 'start recreates what is gone')
  t.equal((await api.waitFor(id, ['running', 'error'])).state, 'running')
  t.ok(kube.get('Deployment', namespace, name), 'the Deployment is back')
  t.same(kube.internalErrors, [])
})

t.test('before any subscription a second instance runs too: the quota grows with the instances the company holds', async (t) => {
  const { kube, namespace, api } = await kubeApp(t)
  const ids: number[] = []
  for (const subdomain of [uniqueSubdomain('kube-a'), uniqueSubdomain('kube-b')]) {
    const created = await api.create(subdomain)
    t.equal(created.statusCode, 202, created.body)
    ids.push(created.json().instance.id)
    t.equal((await api.waitFor(created.json().instance.id, ['running', 'error'])).state, 'running', `${subdomain} runs`)
  }
  t.match(kube.get('ResourceQuota', namespace, 'erp-quota')?.spec?.hard, { 'count/deployments.apps': '2', 'limits.memory': '2688Mi' }, 'two small instances, the backup Job and the readers')
  for (const id of ids) await api.remove(id)
})
