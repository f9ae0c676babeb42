/**
 * A slow module install on the Kubernetes backend, its ERP the fake's (as real Odoo 17: the
 * install takes its time, then the registry reload answers nothing and the pod's readiness probe
 * on /web/health fails). The install job decides by the module's state read back, so the module
 * is installed on its first attempt, and the reconciler leaves the instance running meanwhile.
 */
import t from 'tap'
import { bearer } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { waitForState } from '../../../support/instances.ts'
import { kubeApp } from '../../../support/kube-backups.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'

t.test('a slow install is installed on its first attempt while the pod is unready in the reload; the instance stays running', async (t) => {
  const context = await kubeApp(t, { erpTiming: { installMs: 2500, reloadMs: 3000 }, env: { ERP_CALL_TIMEOUT_SECONDS: 1, ERP_INSTALL_TIMEOUT_SECONDS: 60 } })
  const { kube, app, admin, id, subdomain, namespace } = context
  const database = erpDatabaseNames(await instanceUid(app, id)).database
  t.equal(kube.erp.initialised(database), true, 'its first-start Job filled the database')
  const ready = () => kube.get('Deployment', namespace, `erp-${subdomain}`)?.status?.readyReplicas ?? 0
  t.equal(ready(), 1)

  const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
  const assigned = await app.inject({ method: 'POST', url: `/api/instances/${id}/modules`, headers: bearer(admin.token), payload: { module_id: catalog.find((m) => m.technical_name === 'account')?.id } })
  t.equal(assigned.statusCode, 202, assigned.body)
  await waitFor(async () => kube.erp.modules(database).find((m) => m.name === 'account')?.state === 'to install', { timeoutMs: 20_000, intervalMs: 50 })
  await waitFor(async () => ready() === 0, { timeoutMs: 20_000, intervalMs: 50 })
  t.match(await app.instances.reconcileNow(), { checked: 1, corrected: 0 }, 'the pod is unready while the ERP reloads: the reconciler corrects nothing')
  const during = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.equal(during.state, 'running', 'still running while the ERP reloads')

  const settled = await waitFor(async () => {
    const [row] = await app.sql<{ state: string, error: string | null }>({ text: 'SELECT state, error FROM instance_modules WHERE instance_id = $1', values: [id] })
    return row?.state === 'installed' || row?.state === 'failed' ? row : undefined
  }, { timeoutMs: 60_000, intervalMs: 100 })
  t.same(settled, { state: 'installed', error: null }, 'installed, though its call got no answer within ERP_CALL_TIMEOUT_SECONDS')
  t.match(kube.erp.modules(database).filter((m) => ['mail', 'account'].includes(m.name)), [{ name: 'mail', state: 'installed' }, { name: 'account', state: 'installed' }], 'in the ERP, its dependency too')
  const installs = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE type = 'instance_module.installed' AND instance_id = $1", values: [id] })
  t.equal(installs[0]?.n, 1, 'one install recorded')
  await waitFor(async () => ready() === 1, { timeoutMs: 10_000, intervalMs: 50 })
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  t.same(kube.internalErrors, [])
})
