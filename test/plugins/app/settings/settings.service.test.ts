import t from 'tap'
import { ACROSS_TENANTS, scopedEntityManager } from '../../../../database/tenancy.ts'
import type { SystemActor } from '../../../../lib/actor.ts'
import { TenantSettings } from '../../../../plugins/app/settings/tenant-settings.entity.ts'
import { SETTINGS_DEFAULTS, loadSettingsView, toSettingsView } from '../../../../plugins/app/settings/settings.view.ts'
import { signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'

t.test('the defaults shown before the first save are the entity\'s and the database\'s', async (t) => {
  const { app, orm } = await build(t)
  const properties = orm.getMetadata().get(TenantSettings).properties
  for (const [key, value] of Object.entries(SETTINGS_DEFAULTS)) {
    const property = properties[key as keyof typeof properties]
    t.ok(property, `${key} is a TenantSettings property`)
    if (value === null) t.ok(property?.nullable, `${key} is nullable`)
    else t.equal(property?.default, value, `${key} defaults to ${value} in the entity`)
  }

  const account = await signup(app, { company: 'Hooli' })
  const em = scopedEntityManager(orm.em, account.user.tenant_id)
  const before = await loadSettingsView(em, account.user.tenant_id)
  t.same(before, toSettingsView('Hooli', null))
  await orm.em.fork().getConnection().execute('INSERT INTO tenant_settings (tenant_id, created_at, updated_at) VALUES (?, now(), now())', [account.user.tenant_id])
  const stored = await loadSettingsView(scopedEntityManager(orm.em, account.user.tenant_id), account.user.tenant_id)
  t.same(stored, before, 'a row holding only the column defaults reads the same as no row')
})

t.test('loadSettingsView only reads through an EntityManager scoped to that tenant', async (t) => {
  const { app, orm } = await build(t)
  const a = await signup(app, { company: 'Alpha' })
  const b = await signup(app, { company: 'Beta' })
  t.equal((await loadSettingsView(scopedEntityManager(orm.em, b.user.tenant_id), b.user.tenant_id)).company.name, 'Beta')
  await t.rejects(loadSettingsView(scopedEntityManager(orm.em, a.user.tenant_id), b.user.tenant_id), { code: 'COMPANY_NOT_FOUND', statusCode: 404 }, 'another tenant\'s scope cannot see it')
  await t.rejects(loadSettingsView(orm.em.fork(), b.user.tenant_id), /filter 'tenant'/, 'an unscoped EntityManager is refused')
})

t.test('a system job may change settings; the activity credits the job', async (t) => {
  const { app, orm } = await build(t)
  const account = await signup(app)
  const actor: SystemActor = { kind: 'system', tenantId: account.user.tenant_id, job: 'import' }
  const view = await app.settings.update({ em: scopedEntityManager(orm.em, actor.tenantId), actor }, { company: { country: 'nl', language: 'nl-nl' }, notifications: { tickets: false } })
  t.equal(view.company.country, 'NL')
  t.equal(view.company.language, 'nl-NL')
  t.equal(view.notifications.tickets, false)
  const [activity] = await orm.em.fork().getConnection().execute("SELECT actor_kind, actor_id, title FROM activities WHERE tenant_id = ? AND type = 'settings.updated'", [actor.tenantId])
  t.equal(activity?.actor_kind, 'system')
  t.equal(activity?.actor_id, 'import')
  t.equal(activity?.title, 'The system changed the company settings: country, language, ticket notifications')
  const row = await orm.em.fork().findOneOrFail(TenantSettings, { tenant: actor.tenantId }, ACROSS_TENANTS)
  t.equal(row.country, 'NL', 'stored normalised')
})
