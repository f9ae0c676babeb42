/**
 * Uninstalling a module, end to end on the Kubernetes backend of the fake API server, whose ERP
 * behaves as real Odoo 17 does (the uninstall takes its time, then the registry reload answers
 * nothing; button_immediate_uninstall takes the modules that depend on it along): the service
 * refuses what installed modules depend on, naming them, before anything is queued; an accepted
 * uninstall goes `uninstalling` → `uninstalled` (read back through the ERP's API), once however
 * often it is asked; the ERP's refusal ends `failed` with its message.
 */
import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { waitForState } from '../../../support/instances.ts'
import { kubeApp } from '../../../support/kube-backups.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { createOdooAdapter } from '../../../../provisioning/erp/odoo-adapter.ts'
import { kubeAuthenticatedFetch } from '../../../../provisioning/kubernetes/erp-access.ts'

const context = await kubeApp(t, { erpTiming: { installMs: 1500, reloadMs: 500 }, env: { ERP_INSTALL_TIMEOUT_SECONDS: 60 } })
const { kube, app, admin, id, subdomain, namespace } = context
const database = erpDatabaseNames(await instanceUid(app, id)).database
const slow = { timeoutMs: 60_000, intervalMs: 100 }

/** The instance's ERP through its external API, as the control plane reaches it (the Service proxy, the generated password). */
const erpApi = () => createOdooAdapter({
  endpoint: `${kube.url}/api/v1/namespaces/${namespace}/services/erp-${subdomain}:8069/proxy/`,
  timeoutMs: 10_000,
  fetch: kubeAuthenticatedFetch(kube.kubeConfig),
  database,
  adminPassword: kube.erp.adminPassword(namespace, `erp-${subdomain}`, database)
})
async function erpStates (names: string[]): Promise<Record<string, string>> {
  const rows = await waitFor(async () => { try { return await erpApi().listModules(names) } catch { return undefined } }, slow)
  return Object.fromEntries(rows.map((m) => [m.name, m.state]))
}

const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
const moduleId = (name: string): number => catalog.find((m) => m.technical_name === name)?.id ?? 0
const uninstall = (name: string | number, token = admin.token, instance = id) => app.inject({
  method: 'DELETE', url: `/api/instances/${instance}/modules/${typeof name === 'number' ? name : moduleId(name)}`, headers: bearer(token)
})
const install = (name: string) => app.inject({ method: 'POST', url: `/api/instances/${id}/modules`, headers: bearer(admin.token), payload: { module_id: moduleId(name) } })
async function rowOf (name: string): Promise<{ state: string, error: string | null } | undefined> {
  const [row] = await app.sql<{ state: string, error: string | null }>({ text: 'SELECT im.state, im.error FROM instance_modules im JOIN erp_modules m ON m.id = im.module_id WHERE im.instance_id = $1 AND m.technical_name = $2', values: [id, name] })
  return row
}
const settled = async (name: string, states: string[]) => await waitFor(async () => {
  const row = await rowOf(name)
  return row !== undefined && states.includes(row.state) ? row : undefined
}, slow)
const uninstallJobs = async () => (await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'erp-module-uninstalls'", values: [] }))[0]?.n
const activities = async (type: string) => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM activities WHERE type = $1 AND instance_id = $2', values: [type, id] }))[0]?.n

t.test('installed: account and contacts, and mail that both depend on', async (t) => {
  for (const name of ['account', 'contacts']) t.equal((await install(name)).statusCode, 202)
  t.same(await settled('account', ['installed', 'failed']), { state: 'installed', error: null })
  t.same(await settled('contacts', ['installed', 'failed']), { state: 'installed', error: null })
  t.equal((await install('mail')).statusCode, 202)
  t.same(await settled('mail', ['installed', 'failed']), { state: 'installed', error: null })
  t.same(await erpStates(['mail', 'account', 'contacts']), { mail: 'installed', account: 'installed', contacts: 'installed' })
})

t.test('a module installed modules depend on is refused, naming them; nothing changes and nothing is queued', async (t) => {
  const refused = await uninstall('mail')
  t.equal(refused.statusCode, 409, refused.body)
  const { error } = refused.json()
  t.equal(error.code, 'MODULE_REQUIRED_BY')
  t.same(error.details, { field: 'module_id', required_by: ['account', 'contacts'] })
  t.match(error.message, /^mail cannot be uninstalled while installed modules depend on it: account, contacts\./)
  t.same(await rowOf('mail'), { state: 'installed', error: null })
  t.equal(await uninstallJobs(), 0, 'no job')
  t.equal(await activities('instance_module.uninstall_requested'), 0, 'no activity')
  t.same(await erpStates(['mail', 'account', 'contacts']), { mail: 'installed', account: 'installed', contacts: 'installed' }, 'the ERP untouched')
})

t.test('refusals: a member, another company, an unknown module, one never installed here, one the ERP cannot lose', async (t) => {
  const member = await addMember(app, admin.user.tenant_id)
  const forbidden = await uninstall('contacts', member.token)
  t.equal(forbidden.statusCode, 403)
  t.equal(forbidden.json().error.code, 'FORBIDDEN')
  const other = await signup(app)
  const foreign = await uninstall('contacts', other.token)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND')
  const unknown = await uninstall(2_000_000)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'MODULE_NOT_FOUND')
  const never = await uninstall('crm')
  t.equal(never.statusCode, 409)
  t.match(never.json().error, { code: 'MODULE_NOT_INSTALLED', message: /^crm is not installed on .*: it was never installed here$/, details: { state: null } })
  t.same(await rowOf('contacts'), { state: 'installed', error: null })
  t.equal(await uninstallJobs(), 0, 'nothing queued')
  t.equal(await erpStates(['contacts']).then((s) => s.contacts), 'installed')
})

t.test('an uninstall goes uninstalling, then uninstalled, once however often it is asked; the ERP no longer has the module', async (t) => {
  const first = await uninstall('contacts')
  t.equal(first.statusCode, 202, first.body)
  t.match(first.json().module, { module_id: moduleId('contacts'), technical_name: 'contacts', state: 'uninstalling', error: null })
  const again = await uninstall('contacts')
  t.equal(again.statusCode, 202, again.body)
  t.match(again.json().module, { state: 'uninstalling' }, 'the same uninstall, as it stands')
  const listed = (await app.inject({ method: 'GET', url: `/api/instances/${id}/modules`, headers: bearer(admin.token) })).json().modules
  t.match(listed.find((m: { technical_name: string }) => m.technical_name === 'contacts'), { state: 'uninstalling' }, 'visible in the list')
  t.same(await settled('contacts', ['uninstalled', 'failed']), { state: 'uninstalled', error: null })
  t.equal(await uninstallJobs(), 1, 'one job')
  t.same(await erpStates(['mail', 'account', 'contacts']), { mail: 'installed', account: 'installed', contacts: 'uninstalled' }, 'read back through the ERP: only contacts went')
  t.equal(await activities('instance_module.uninstall_requested'), 1)
  t.equal(await activities('instance_module.uninstalled'), 1)
  const done = await uninstall('contacts')
  t.equal(done.statusCode, 409)
  t.match(done.json().error, { code: 'MODULE_NOT_INSTALLED', message: /it was uninstalled$/, details: { state: 'uninstalled' } })
})

t.test('the ERP refuses: failed with its message, the module still installed; asked again, it goes', async (t) => {
  kube.erp.failNextUninstall(database, 'The module Invoicing holds posted journal entries')
  t.equal((await uninstall('account')).statusCode, 202)
  const failed = await settled('account', ['uninstalled', 'failed'])
  t.equal(failed.state, 'failed')
  t.match(failed.error, /The module Invoicing holds posted journal entries/)
  t.equal(await activities('instance_module.uninstall_failed'), 1)
  t.equal((await erpStates(['account'])).account, 'installed')
  t.equal((await uninstall('account')).statusCode, 202, 'a failed uninstall may be asked again')
  t.same(await settled('account', ['uninstalled', 'failed']), { state: 'uninstalled', error: null })
  // Nothing installed depends on mail any more.
  t.equal((await uninstall('mail')).statusCode, 202)
  t.same(await settled('mail', ['uninstalled', 'failed']), { state: 'uninstalled', error: null })
  t.same(await erpStates(['mail', 'account', 'contacts']), { mail: 'uninstalled', account: 'uninstalled', contacts: 'uninstalled' })
})

t.test('an uninstalled module can be installed again', async (t) => {
  const again = await install('contacts')
  t.equal(again.statusCode, 202, again.body)
  t.match(again.json().module, { state: 'queued' })
  t.same(await settled('contacts', ['installed', 'failed']), { state: 'installed', error: null })
  t.same(await erpStates(['mail', 'contacts']), { mail: 'installed', contacts: 'installed' })
})

t.test('the ERP as real Odoo: uninstalling a module the others depend on takes them along (which is why the service refuses)', async (t) => {
  const erp = erpApi()
  const [mail] = await erp.listModules(['mail'])
  t.same((await erp.moduleDependents(mail?.id ?? 0)).map((m) => m.name), ['contacts'])
  await erp.uninstallModule(mail?.id ?? 0)
  t.same(await erpStates(['mail', 'contacts']), { mail: 'uninstalled', contacts: 'uninstalled' })
  const [base] = await erp.listModules(['base'])
  await t.rejects(erp.uninstallModule(base?.id ?? 0), { message: /Those modules cannot be uninstalled: base/ })
})

t.test('an instance that is not running: ERP_UNAVAILABLE, nothing changes', async (t) => {
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['stopped'])
  const before = await uninstallJobs()
  const refused = await uninstall('contacts')
  t.equal(refused.statusCode, 503, refused.body)
  t.equal(refused.json().error.code, 'ERP_UNAVAILABLE')
  t.same(await rowOf('contacts'), { state: 'installed', error: null })
  t.equal(await uninstallJobs(), before)
  t.same(kube.internalErrors, [])
})
