import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { MikroORM } from '@mikro-orm/postgresql'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'

const DEFAULT_NOTIFICATIONS = { instance_events: true, billing: true, tickets: true, weekly_report: false }

const getSettings = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/api/settings', headers: bearer(token) })
const putSettings = (app: FastifyInstance, token: string, payload: unknown) =>
  app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(token), payload: payload as object })

async function rows (orm: MikroORM, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  return orm.em.fork().getConnection().execute(sql, params)
}

t.test('before any update: the defaults, the company name, and no settings row', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app, { company: 'Acme Trading' })
  const response = await getSettings(app, admin.token)
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    success: true,
    settings: {
      company: { name: 'Acme Trading', address: null, phone: null, email: null, vat_id: null, country: null, currency: 'EUR', timezone: 'UTC', language: 'en' },
      notifications: DEFAULT_NOTIFICATIONS,
      security: { require_two_factor: false }
    }
  })
  t.same(await rows(orm, 'SELECT 1 FROM tenant_settings WHERE tenant_id = ?', [admin.user.tenant_id]), [], 'reading creates nothing')
  t.equal((await app.inject({ method: 'GET', url: '/api/settings' })).statusCode, 401, 'a token is required')
})

t.test('partial updates merge, values are normalised, and null clears', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)

  const first = await putSettings(app, admin.token, {
    company: { country: 'de', currency: 'chf', timezone: 'europe/berlin', language: 'DE-ch', vat_id: ' de 123456789 ', email: 'Billing@Acme.Example', phone: '+49 30  1234567' }
  })
  t.equal(first.statusCode, 200, first.body)
  t.same(first.json().settings.company, {
    name: first.json().settings.company.name,
    address: null,
    phone: '+49 30 1234567',
    email: 'billing@acme.example',
    vat_id: 'DE 123456789',
    country: 'DE',
    currency: 'CHF',
    timezone: 'Europe/Berlin',
    language: 'de-CH'
  })
  t.same(first.json().settings.notifications, DEFAULT_NOTIFICATIONS)

  const second = await putSettings(app, admin.token, { company: { address: '1 Main St\nBerlin' }, notifications: { weekly_report: true, billing: false } })
  t.equal(second.statusCode, 200)
  const merged = second.json().settings
  t.equal(merged.company.address, '1 Main St\nBerlin')
  t.equal(merged.company.country, 'DE', 'fields left out keep their value')
  t.equal(merged.company.currency, 'CHF')
  t.same(merged.notifications, { instance_events: true, billing: false, tickets: true, weekly_report: true })

  const cleared = await putSettings(app, admin.token, { company: { phone: null, vat_id: null, country: '  ' } })
  t.equal(cleared.statusCode, 200)
  t.equal(cleared.json().settings.company.phone, null)
  t.equal(cleared.json().settings.company.vat_id, null)
  t.equal(cleared.json().settings.company.country, null, 'blank text clears too')
  t.equal(cleared.json().settings.company.email, 'billing@acme.example', 'other optional fields untouched')

  const read = await getSettings(app, admin.token)
  t.same(read.json().settings, cleared.json().settings, 'GET answers what the update answered')
  const [row] = await rows(orm, 'SELECT count(*)::int AS n FROM tenant_settings WHERE tenant_id = ?', [admin.user.tenant_id])
  t.equal(row?.n, 1, 'one settings row for the tenant')
})

t.test('the company name is the tenant\'s name', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const response = await putSettings(app, admin.token, { company: { name: '  Globex Corporation  ' } })
  t.equal(response.statusCode, 200)
  t.equal(response.json().settings.company.name, 'Globex Corporation')
  const [tenant] = await rows(orm, 'SELECT name FROM tenants WHERE id = ?', [admin.user.tenant_id])
  t.equal(tenant?.name, 'Globex Corporation')
  t.same(await rows(orm, 'SELECT 1 FROM tenant_settings WHERE tenant_id = ?', [admin.user.tenant_id]), [], 'a rename alone needs no settings row')
})

t.test('every change writes one activity record in the same transaction; a no-op writes none', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const activities = () => rows(orm, "SELECT type, title, actor_kind, actor_id, target_type, target_id FROM activities WHERE tenant_id = ? AND type = 'settings.updated' ORDER BY id", [admin.user.tenant_id])

  await putSettings(app, admin.token, { company: { name: 'Initech', currency: 'USD', timezone: 'America/Chicago' }, notifications: { weekly_report: true } })
  const [record, ...rest] = await activities()
  t.same(rest, [])
  t.equal(record?.actor_kind, 'user')
  t.equal(record?.actor_id, admin.user.id)
  t.equal(record?.target_type, 'settings')
  t.equal(record?.target_id, admin.user.tenant_id)
  t.match(String(record?.title), /company settings: company name, currency, time zone, weekly report$/)

  t.equal((await putSettings(app, admin.token, { company: { currency: 'usd', name: 'Initech' } })).statusCode, 200)
  t.equal((await putSettings(app, admin.token, {})).statusCode, 200)
  t.equal((await activities()).length, 1, 'values equal to the current ones are not changes')

  await putSettings(app, admin.token, { company: { currency: 'EUR', country: 'FR' } })
  const titles = (await activities()).map((a) => a.title)
  t.equal(titles.length, 2)
  t.match(String(titles[1]), /: country, currency$/, 'the title lists only what changed, in form order')
})

t.test('a user-role member can read but not change the settings; nothing changes', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app, { company: 'Umbrella' })
  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })

  t.equal((await getSettings(app, member.token)).statusCode, 200, 'members may read')
  const refused = await putSettings(app, member.token, { company: { name: 'Hijacked', currency: 'USD' }, notifications: { billing: false } })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().error.code, 'FORBIDDEN')
  t.same((await getSettings(app, admin.token)).json().settings.company.name, 'Umbrella')
  t.same(await rows(orm, 'SELECT 1 FROM tenant_settings WHERE tenant_id = ?', [admin.user.tenant_id]), [])
  t.same(await rows(orm, 'SELECT 1 FROM activities WHERE tenant_id = ? AND type = ?', [admin.user.tenant_id, 'settings.updated']), [])

  const invalid = await putSettings(app, member.token, { company: { country: 'XX' } })
  t.equal(invalid.statusCode, 403, 'the role is checked before the values: a member learns nothing from validation')
})

t.test('tenant isolation: one company\'s update is never visible to another', async (t) => {
  const { app } = await build(t)
  const a = await signup(app, { company: 'Company A' })
  const b = await signup(app, { company: 'Company B' })
  await putSettings(app, a.token, { company: { name: 'A Renamed', currency: 'JPY', country: 'JP' }, notifications: { tickets: false } })
  await putSettings(app, b.token, { company: { timezone: 'Australia/Sydney' } })

  const seenByB = (await getSettings(app, b.token)).json().settings
  t.equal(seenByB.company.name, 'Company B')
  t.equal(seenByB.company.currency, 'EUR')
  t.equal(seenByB.company.country, null)
  t.equal(seenByB.company.timezone, 'Australia/Sydney', 'B sees its own change')
  t.same(seenByB.notifications, DEFAULT_NOTIFICATIONS)

  const seenByA = (await getSettings(app, a.token)).json().settings
  t.equal(seenByA.company.timezone, 'UTC', 'and A does not see B\'s')
  t.equal(seenByA.company.currency, 'JPY')
})

t.test('concurrent first updates create one row and keep both changes', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const responses = await Promise.all([
    putSettings(app, admin.token, { company: { currency: 'GBP' } }),
    putSettings(app, admin.token, { company: { country: 'GB' } }),
    putSettings(app, admin.token, { notifications: { weekly_report: true } })
  ])
  t.same(responses.map((r) => r.statusCode), [200, 200, 200])
  const settings = (await getSettings(app, admin.token)).json().settings
  t.equal(settings.company.currency, 'GBP')
  t.equal(settings.company.country, 'GB')
  t.equal(settings.notifications.weekly_report, true)
  const [row] = await rows(orm, 'SELECT count(*)::int AS n FROM tenant_settings WHERE tenant_id = ?', [admin.user.tenant_id])
  t.equal(row?.n, 1)
})
