/**
 * Which catalog modules an instance may be given: the shared catalog and the modules this
 * company's own addon sources provide. Another company's synced module answers 404
 * MODULE_NOT_FOUND exactly like an unknown id; a synced module written for another ERP version
 * answers 409, and so does an Enterprise-only catalog app where instances run the Community
 * edition. Either way nothing is recorded or queued.
 */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'

const { app } = await build(t)
const ours = await signup(app)
const theirs = await signup(app)
const instanceId = await recordInstance(app, ours.user.tenant_id)

/** A module as a synced addon source of `tenantId` records it (the source itself is not needed here). */
async function companyModule (tenantId: string, technicalName: string, erpSeries: string | null = null): Promise<number> {
  const [row] = await app.sql<{ id: number }>({
    text: `INSERT INTO erp_modules (technical_name, name, description, category, sequence, tenant_id, erp_series)
      VALUES ($1, $2, 'Synced from a Git repository', 'Custom', 100, $3, $4) RETURNING id`,
    values: [technicalName, `Module ${technicalName}`, tenantId, erpSeries]
  })
  return row!.id
}

const assign = (moduleId: number) => app.inject({
  method: 'POST', url: `/api/instances/${instanceId}/modules`, headers: bearer(ours.token), payload: { module_id: moduleId }
})
const assignments = async () => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM instance_modules WHERE instance_id = $1', values: [instanceId] }))[0]!.n

t.test('another company\'s synced module is unknown here; our own is installable', async (t) => {
  const foreign = await companyModule(theirs.user.tenant_id, 'their_private_addon')
  const refused = await assign(foreign)
  t.equal(refused.statusCode, 404, refused.body)
  t.equal(refused.json().error.code, 'MODULE_NOT_FOUND')
  t.equal(await assignments(), 0, 'nothing recorded')

  const own = await companyModule(ours.user.tenant_id, 'our_private_addon')
  const accepted = await assign(own)
  t.equal(accepted.statusCode, 202, accepted.body)
  t.match(accepted.json().module, { module_id: own, technical_name: 'our_private_addon', state: 'queued' })
  t.equal(await assignments(), 1)
})

t.test('a synced module written for another ERP version: 409 naming both versions, nothing recorded', async (t) => {
  const [instance] = await app.sql<{ erp_version: string }>({ text: 'SELECT erp_version FROM instances WHERE id = $1', values: [instanceId] })
  const running = instance!.erp_version
  const other = running === '16.0' ? '17.0' : '16.0'
  const before = await assignments()
  const mismatched = await companyModule(ours.user.tenant_id, 'other_series_addon', other)
  const refused = await assign(mismatched)
  t.equal(refused.statusCode, 409, refused.body)
  t.match(refused.json().error, { code: 'MODULE_ERP_VERSION_MISMATCH', details: { module_erp_version: other, instance_erp_version: running } })
  t.equal(await assignments(), before, 'nothing recorded')

  const matching = await companyModule(ours.user.tenant_id, 'same_series_addon', running)
  t.equal((await assign(matching)).statusCode, 202, 'a module for the instance\'s version is accepted')
})

t.test('an Enterprise-only catalog app where instances run the Community edition: 409 naming both editions, nothing recorded', async (t) => {
  const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string, edition: string | null }>
  const helpdesk = catalog.find((m) => m.technical_name === 'helpdesk')
  t.equal(helpdesk?.edition, 'enterprise', 'the catalog says so before anyone tries')
  t.equal(catalog.find((m) => m.technical_name === 'crm')?.edition, 'community')
  const before = await assignments()
  const refused = await assign(helpdesk!.id)
  t.equal(refused.statusCode, 409, refused.body)
  t.match(refused.json().error, { code: 'MODULE_EDITION_UNAVAILABLE', message: /helpdesk \(Helpdesk\) is only in the ERP's Enterprise edition/, details: { field: 'module_id', module_edition: 'enterprise', instance_edition: 'community' } })
  t.equal(await assignments(), before, 'nothing recorded')

  const own = await companyModule(ours.user.tenant_id, 'helpdesk')
  t.equal((await assign(own)).statusCode, 202, 'the company\'s own synced module of that name is its to install')
  t.equal((await app.inject({ method: 'GET', url: '/api/modules?include=company', headers: bearer(ours.token) })).json().modules.find((m: { id: number }) => m.id === own)?.edition, null, 'and carries no edition')

  const enterprise = await build(t, { env: { ERP_EDITION: 'enterprise' } })
  const boss = await signup(enterprise.app)
  const instance = await recordInstance(enterprise.app, boss.user.tenant_id)
  const theirCatalog = (await enterprise.app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
  const helpdeskThere = theirCatalog.find((m) => m.technical_name === 'helpdesk')!.id
  const accepted = await enterprise.app.inject({ method: 'POST', url: `/api/instances/${instance}/modules`, headers: bearer(boss.token), payload: { module_id: helpdeskThere } })
  t.equal(accepted.statusCode, 202, `where the image carries the Enterprise addons it is installed: ${accepted.body}`)
})
