import fc from 'fast-check'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'

/** Anything a client could put in a JSON field. */
const jsonValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
  fc.constantFrom('www', 'a@b.co', '', ' ', "' OR 1=1 --", 'ADMIN@DEMO.EXAMPLE.COM', '\u0000', 'x'.repeat(300))
)

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })

const signupBody = fc.record({
  company: maybe(jsonValue), subdomain: maybe(jsonValue), name: maybe(jsonValue), email: maybe(jsonValue), password: maybe(jsonValue)
}, { requiredKeys: [] })
const loginBody = fc.record({ login: maybe(jsonValue), password: maybe(jsonValue) }, { requiredKeys: [] })

t.test('whatever is sent to signup and login: a 4xx envelope or success, never a 5xx, and no stray rows', async (t) => {
  const { app, orm } = await build(t, { env: { SIGNUP_LIMIT_PER_IP: '100000', SIGNUP_LIMIT_PER_ACCOUNT: '100000', LOGIN_LIMIT_PER_IP: '100000', LOGIN_LIMIT_PER_ACCOUNT: '100000' } })
  const existing = await signup(app)
  let created = 0

  await fc.assert(fc.asyncProperty(fc.boolean(), signupBody, loginBody, async (isSignup, sBody, lBody) => {
    const response = await app.inject({ method: 'POST', url: isSignup ? '/api/signup' : '/api/login', payload: isSignup ? sBody : lBody })
    if (response.statusCode >= 500) throw new Error(`5xx for ${JSON.stringify(isSignup ? sBody : lBody)}: ${response.body}`)
    const body = response.json()
    if (response.statusCode >= 400) {
      if (body.success !== false || typeof body.error?.code !== 'string' || typeof body.error?.message !== 'string') {
        throw new Error(`not an envelope: ${response.body}`)
      }
    } else {
      if (typeof body.token !== 'string') throw new Error(`success without a token: ${response.body}`)
      if (response.statusCode === 201) created++
    }
  }), { numRuns: 300 })

  const [row] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM tenants')
  t.equal(row?.n, 1 + created, 'a tenant exists only for each signup that answered 201')
  t.equal((await app.inject({ method: 'POST', url: '/api/login', payload: { login: existing.email, password: existing.password } })).statusCode, 200, 'the existing account still works')
})
