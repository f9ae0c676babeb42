import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

/** One invalid value per case: the code and the field the client is told about. */
const INVALID: Array<[company: Record<string, unknown>, code: string, field: string]> = [
  [{ country: 'XX' }, 'INVALID_COUNTRY', 'company.country'],
  [{ country: 'ZZ' }, 'INVALID_COUNTRY', 'company.country'],
  [{ country: 'EU' }, 'INVALID_COUNTRY', 'company.country'],
  [{ country: 'DEU' }, 'INVALID_COUNTRY', 'company.country'],
  [{ currency: 'ABC' }, 'INVALID_CURRENCY', 'company.currency'],
  [{ currency: 'euro' }, 'INVALID_CURRENCY', 'company.currency'],
  [{ currency: '' }, 'INVALID_CURRENCY', 'company.currency'],
  [{ timezone: 'Mars/Olympus_Mons' }, 'INVALID_TIMEZONE', 'company.timezone'],
  [{ timezone: '+01:00' }, 'INVALID_TIMEZONE', 'company.timezone'],
  [{ timezone: '' }, 'INVALID_TIMEZONE', 'company.timezone'],
  [{ language: 'english!' }, 'INVALID_LANGUAGE', 'company.language'],
  [{ language: 'xyz' }, 'INVALID_LANGUAGE', 'company.language'],
  [{ language: 'en-XX' }, 'INVALID_LANGUAGE', 'company.language'],
  [{ language: 'en-US-u-ca-gregory' }, 'INVALID_LANGUAGE', 'company.language'],
  [{ email: 'not-an-email' }, 'INVALID_COMPANY_EMAIL', 'company.email'],
  [{ email: 'a@b' }, 'INVALID_COMPANY_EMAIL', 'company.email'],
  [{ phone: 'call me maybe' }, 'INVALID_COMPANY_PHONE', 'company.phone'],
  [{ phone: '12' }, 'INVALID_COMPANY_PHONE', 'company.phone'],
  [{ phone: '+49 30 123+456' }, 'INVALID_COMPANY_PHONE', 'company.phone'],
  [{ vat_id: 'DE' }, 'INVALID_VAT_ID', 'company.vat_id'],
  [{ vat_id: 'NO-DIGITS-HERE' }, 'INVALID_VAT_ID', 'company.vat_id'],
  [{ vat_id: 'DE#123456' }, 'INVALID_VAT_ID', 'company.vat_id'],
  [{ name: '   ' }, 'INVALID_COMPANY_NAME', 'company.name']
]

t.test('each invalid value: 400 with its code and field, and nothing saved', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app, { company: 'Stark Industries' })
  for (const [company, code, field] of INVALID) {
    const response = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { company } })
    const label = JSON.stringify(company)
    t.equal(response.statusCode, 400, label)
    const error = response.json().error
    t.equal(error.code, 'VALIDATION_FAILED', label)
    t.same(error.details.fields.map((f: { field: string, code: string }) => [f.field, f.code]), [[field, code]], `${label}: the field's code`)
    t.ok(error.message.startsWith(`${field} `), `${label}: the message starts with the field`)
  }
  const [row] = await orm.em.fork().getConnection().execute('SELECT count(*)::int AS n FROM tenant_settings')
  t.equal(row?.n, 0, 'no settings row was created')
  const settings = (await app.inject({ method: 'GET', url: '/api/settings', headers: bearer(admin.token) })).json().settings
  t.equal(settings.company.name, 'Stark Industries')
})

t.test('one invalid field refuses the whole update and every failing field is listed', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app, { company: 'Wayne Enterprises' })
  const response = await app.inject({
    method: 'PUT',
    url: '/api/settings/update',
    headers: bearer(admin.token),
    payload: { company: { name: 'Renamed', currency: 'USD', country: 'ZZ', timezone: 'Nowhere/City' }, notifications: { billing: false } }
  })
  t.equal(response.statusCode, 400)
  const error = response.json().error
  t.equal(error.code, 'VALIDATION_FAILED', 'the one code of malformed input')
  t.same(error.details.fields.map((f: { field: string, code: string }) => [f.field, f.code]), [
    ['company.country', 'INVALID_COUNTRY'],
    ['company.timezone', 'INVALID_TIMEZONE']
  ])
  t.match(error.message, /company\.country .*; company\.timezone /)

  const settings = (await app.inject({ method: 'GET', url: '/api/settings', headers: bearer(admin.token) })).json().settings
  t.equal(settings.company.name, 'Wayne Enterprises', 'the valid rename was not applied')
  t.equal(settings.company.currency, 'EUR')
  t.equal(settings.notifications.billing, true)
  const [activity] = await orm.em.fork().getConnection().execute("SELECT count(*)::int AS n FROM activities WHERE type = 'settings.updated'")
  t.equal(activity?.n, 0)
})

t.test('the shape is checked strictly: unknown fields, wrong types, nulls for required values, oversize text', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const cases: Array<[payload: unknown, field: string]> = [
    [{ company: { colour: 'red' } }, 'company.colour'],
    [{ theme: 'dark' }, 'theme'],
    [{ notifications: { sms: true } }, 'notifications.sms'],
    [{ notifications: { billing: 'yes' } }, 'notifications.billing'],
    [{ company: { currency: null } }, 'company.currency'],
    [{ company: { name: null } }, 'company.name'],
    [{ company: { name: '' } }, 'company.name'],
    [{ company: { country: 49 } }, 'company.country'],
    [{ company: { address: 'x'.repeat(501) } }, 'company.address'],
    [{ company: 'Acme' }, 'company']
  ]
  for (const [payload, field] of cases) {
    const response = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: payload as object })
    const label = JSON.stringify(payload).slice(0, 80)
    t.equal(response.statusCode, 400, label)
    t.equal(response.json().error.code, 'VALIDATION_FAILED', label)
    t.ok(response.json().error.details.fields.some((f: { field: string }) => f.field === field), `${label} names ${field}`)
  }
})

t.test('accepted spellings are normalised', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const cases: Array<[field: string, input: string, stored: string]> = [
    ['country', ' fr ', 'FR'],
    ['currency', 'jpy', 'JPY'],
    ['timezone', 'AMERICA/NEW_YORK', 'America/New_York'],
    ['timezone', 'US/Eastern', 'America/New_York'],
    ['timezone', 'Etc/UTC', 'UTC'],
    ['language', 'pt_br', 'pt-BR'],
    ['language', 'zh-hant-tw', 'zh-Hant-TW'],
    ['language', 'es-419', 'es-419'],
    ['vat_id', 'gb 123 4567 89', 'GB 123 4567 89'],
    ['phone', '(555) 123-4567', '(555) 123-4567']
  ]
  for (const [field, input, stored] of cases) {
    const response = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { company: { [field]: input } } })
    t.equal(response.statusCode, 200, `${field} ${input}`)
    t.equal(response.json().settings.company[field], stored, `${field} ${JSON.stringify(input)} → ${stored}`)
  }
})
