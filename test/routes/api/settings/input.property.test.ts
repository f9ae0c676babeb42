import fc from 'fast-check'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

/** Anything a client could put in a settings field, with some near misses of valid values. */
const jsonValue = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.constantFrom('DE', 'de', 'XX', 'EUR', 'eur', 'UTC', 'Europe/Paris', 'en', 'en-XX', 'a@b.co', '+1 555 0100', 'DE123456789', '', ' ', '\u0000', 'x'.repeat(600))
)
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const companyKeys = ['name', 'address', 'phone', 'email', 'vat_id', 'country', 'currency', 'timezone', 'language', 'extra'] as const
const notificationKeys = ['instance_events', 'billing', 'tickets', 'weekly_report', 'extra'] as const
const body = fc.record({
  company: maybe(fc.oneof(fc.record(Object.fromEntries(companyKeys.map((k) => [k, maybe(jsonValue)])), { requiredKeys: [] }), jsonValue)),
  notifications: maybe(fc.oneof(fc.record(Object.fromEntries(notificationKeys.map((k) => [k, maybe(jsonValue)])), { requiredKeys: [] }), jsonValue))
}, { requiredKeys: [] })

t.test('whatever is sent to the update: a 4xx envelope naming fields, or settings that read back the same; never a 5xx', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const headers = bearer(admin.token)
  let accepted = 0

  await fc.assert(fc.asyncProperty(body, async (payload) => {
    const response = await app.inject({ method: 'PUT', url: '/api/settings/update', headers, payload })
    if (response.statusCode >= 500) throw new Error(`5xx for ${JSON.stringify(payload)}: ${response.body}`)
    const json = response.json()
    if (response.statusCode >= 400) {
      if (json.success !== false || typeof json.error?.code !== 'string') throw new Error(`not an envelope: ${response.body}`)
      if (json.error.code !== 'INVALID_CHARACTER' && !Array.isArray(json.error.details?.fields)) throw new Error(`no fields: ${response.body}`)
      return
    }
    accepted++
    const read = (await app.inject({ method: 'GET', url: '/api/settings', headers })).json()
    t.same(read.settings, json.settings)
  }), { numRuns: 300 })
  t.ok(accepted > 0, `${accepted} updates were accepted`)
})
