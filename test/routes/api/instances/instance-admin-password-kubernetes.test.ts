/**
 * On the fake Kubernetes API server, the portal reaches each instance's ERP through the API
 * server's Service proxy (KUBE_ERP_ACCESS=auto with a kubeconfig file): the administrator's default
 * password is replaced there before the instance is reported running, and an ERP that does not
 * answer keeps it out of `running` until the last attempt puts it in `error`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { fakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'

async function kubeApp (t: Test) {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const { app, databaseUrl } = await build(t, {
    env: { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', INSTANCES_DOMAIN: 'erp.test', RECONCILE_SECONDS: 3600, INSTANCE_JOB_RETRIES: 1, ERP_CALL_TIMEOUT_SECONDS: 2 }
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const create = async (subdomain: string): Promise<number> => {
    const created = await app.inject({
      method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
      payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'kubernetes' }
    })
    t.equal(created.statusCode, 202, created.body)
    return created.json().instance.id
  }
  const activities = async (id: number) => app.sql<{ type: string, created_at: string | Date }>({ text: 'SELECT type, created_at FROM activities WHERE instance_id = $1 ORDER BY id', values: [id] })
  return { kube, app, admin, namespace: `erp-${admin.subdomain}`, create, activities }
}

t.test('the default password is replaced through the API server\'s Service proxy before the instance is reported running', async (t) => {
  const { kube, app, admin, namespace, create, activities } = await kubeApp(t)
  const subdomain = uniqueSubdomain('pw')
  const id = await create(subdomain)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  const uid = await instanceUid(app, id)
  const database = erpDatabaseNames(uid).database
  const secrets = await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid })
  t.equal(secrets?.adminPasswordSet, true, 'recorded as set')
  t.equal(kube.erp.adminPassword(namespace, `erp-${subdomain}`, database), secrets?.adminPassword, 'the ERP holds the generated password, admin/admin no longer')
  const url = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance.url
  t.equal(kube.erp.configParameter(namespace, `erp-${subdomain}`, database, 'web.base.url'), url, 'web.base.url is the instance\'s address, set with the password')

  const write = kube.erp.calls.find((c) => c.service === `erp-${subdomain}` && c.call === 'object.execute_kw' && c.args[4] === 'write')
  t.match(write?.args, [database, 2, 'admin', 'res.users', 'write', [[2], { password: secrets?.adminPassword }]], 'written as admin/admin, on uid 2')
  const running = (await activities(id)).find((a) => a.type === 'instance.running')
  t.ok(write !== undefined && running !== undefined && write.at.getTime() <= new Date(running.created_at).getTime(), 'the write came before the instance was reported running')
  const proxied = kube.requests.filter((r) => r.path === `/api/v1/namespaces/${namespace}/services/erp-${subdomain}:8069/proxy/jsonrpc`)
  t.ok(proxied.length >= 3 && proxied.every((r) => r.method === 'POST' && r.status === 200), 'every ERP call went through the proxy, with the kubeconfig\'s token')

  // A restart checks the generated password once; nothing is written again.
  const before = kube.erp.calls.length
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/restart`, headers: bearer(admin.token) })).statusCode, 202)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  t.same(kube.erp.calls.slice(before).map((c) => [c.call, c.args[2]]), [['common.authenticate', secrets?.adminPassword]], 'one authenticate call with the generated password')
})

t.test('an ERP that does not answer keeps the instance out of running; the last attempt puts it in error; once it answers, a start gets it running', async (t) => {
  const { kube, app, admin, namespace, create, activities } = await kubeApp(t)
  const subdomain = uniqueSubdomain('silent')
  kube.erp.setAnswering(namespace, `erp-${subdomain}`, false)
  const id = await create(subdomain)
  const failed = await waitForState(app, admin.token, id, ['running', 'error'])
  t.equal(failed.state, 'error', 'never reported running')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, /^The ERP's administrator password is not secured: The instance's ERP is not reachable|^The ERP's administrator password is not secured: The ERP answered HTTP 503/, 'the reason')
  t.notOk((await activities(id)).some((a) => a.type === 'instance.running'), 'no running record at any time')
  const attempts = kube.requests.filter((r) => r.path.endsWith(`/services/erp-${subdomain}:8069/proxy/jsonrpc`)).length
  t.equal(attempts, 2, 'one try per job attempt (INSTANCE_JOB_RETRIES=1), each answered 503 by the proxy')
  const [job] = await app.sql<{ retry_count: number }>({ text: "SELECT retry_count FROM pgboss.job WHERE name = 'instance-actions' AND data->>'instanceId' = $1", values: [String(id)] })
  t.equal(job?.retry_count, 1, 'the job was retried once')

  kube.erp.setAnswering(namespace, `erp-${subdomain}`, true)
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/start`, headers: bearer(admin.token) })).statusCode, 202)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running', 'secured and running')
  t.equal(kube.erp.adminPassword(namespace, `erp-${subdomain}`, erpDatabaseNames(await instanceUid(app, id)).database).length, 32, 'the generated password is set')
})
