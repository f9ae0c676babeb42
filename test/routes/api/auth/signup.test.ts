import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer } from '../../../support/accounts.ts'

const valid = (overrides: Record<string, unknown> = {}) => ({
  company: 'Acme Manufacturing',
  subdomain: 'acme',
  name: 'Ada Admin',
  email: 'Ada@Acme.example.com',
  password: 'a long enough password',
  ...overrides
})

async function counts (orm: { em: { getConnection: () => { execute: (sql: string) => Promise<Array<{ tenants: string, users: string }>> } } }) {
  const [row] = await orm.em.getConnection().execute('SELECT (SELECT count(*) FROM tenants) AS tenants, (SELECT count(*) FROM users) AS users')
  return { tenants: Number(row?.tenants), users: Number(row?.users) }
}

t.test('signup creates a tenant and its first admin, and answers like login', async (t) => {
  const { app, orm } = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/signup', payload: valid() })
  t.equal(response.statusCode, 201)
  const body = response.json()
  t.equal(body.success, true)
  t.equal(body.token_type, 'Bearer')
  t.ok(body.expires_in > 0)
  t.match(body.user, { name: 'Ada Admin', email: 'ada@acme.example.com', login: 'ada@acme.example.com', is_admin: true, role: 'admin' })

  const me = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(body.token) })
  t.equal(me.statusCode, 200)
  t.same(me.json().user, body.user)

  const [tenant] = await orm.em.getConnection().execute('SELECT name, subdomain, status FROM tenants WHERE id = ?', [body.user.tenant_id])
  t.same(tenant, { name: 'Acme Manufacturing', subdomain: 'acme', status: 'active' })
  const [user] = await orm.em.getConnection().execute('SELECT password_hash FROM users WHERE id = ?', [body.user.id])
  t.match(user?.password_hash, /^\$argon2id\$/, 'password stored as an argon2id hash')
})

t.test('duplicates answer 409 and change nothing', async (t) => {
  const { app, orm } = await build(t)
  t.equal((await app.inject({ method: 'POST', url: '/api/signup', payload: valid() })).statusCode, 201)
  const before = await counts(orm)

  const sameEmail = await app.inject({ method: 'POST', url: '/api/signup', payload: valid({ subdomain: 'other', email: 'ADA@acme.example.com' }) })
  t.equal(sameEmail.statusCode, 409)
  t.equal(sameEmail.json().error.code, 'EMAIL_TAKEN', 'e-mail comparison ignores case')

  const sameSubdomain = await app.inject({ method: 'POST', url: '/api/signup', payload: valid({ email: 'someone@else.example.com' }) })
  t.equal(sameSubdomain.statusCode, 409)
  t.equal(sameSubdomain.json().error.code, 'SUBDOMAIN_TAKEN')

  t.same(await counts(orm), before)
})

t.test('concurrent signups for one subdomain create exactly one tenant', async (t) => {
  const { app, orm } = await build(t)
  const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => app.inject({
    method: 'POST',
    url: '/api/signup',
    payload: valid({ subdomain: 'racing', email: `racer${i}@example.com` }),
    remoteAddress: `10.2.0.${i}`
  })))
  const statuses = attempts.map((r) => r.statusCode).sort()
  t.same(statuses, [201, 409, 409, 409, 409, 409])
  t.same(await counts(orm), { tenants: 1, users: 1 })
})

t.test('bad input is a 400 (or reserved 409) that names the field and creates nothing', async (t) => {
  // Every attempt counts toward the signup limits; this test makes many on purpose.
  const { app, orm } = await build(t, { env: { SIGNUP_LIMIT_PER_ACCOUNT: '100', SIGNUP_LIMIT_PER_IP: '100' } })
  const cases: Array<[Record<string, unknown>, number, string, string]> = [
    [valid({ subdomain: 'Bad_Name' }), 400, 'VALIDATION_FAILED', 'subdomain'],
    [valid({ subdomain: '-acme' }), 400, 'VALIDATION_FAILED', 'subdomain'],
    [valid({ subdomain: 'ab' }), 400, 'VALIDATION_FAILED', 'subdomain'],
    [valid({ subdomain: 'a'.repeat(41) }), 400, 'VALIDATION_FAILED', 'subdomain'],
    [valid({ email: 'not-an-email' }), 400, 'VALIDATION_FAILED', 'email'],
    [valid({ password: 'short' }), 400, 'VALIDATION_FAILED', 'password'],
    [valid({ company: '' }), 400, 'VALIDATION_FAILED', 'company'],
    [valid({ company: '   ' }), 400, 'VALIDATION_FAILED', 'company'],
    [valid({ name: ' \t ' }), 400, 'VALIDATION_FAILED', 'name'],
    [valid({ role: 'admin' }), 400, 'VALIDATION_FAILED', 'role'],
    [valid({ email: 'longenough@example.com', password: 'LongEnough@Example.com' }), 400, 'WEAK_PASSWORD', 'password'],
    [valid({ subdomain: 'www' }), 409, 'SUBDOMAIN_RESERVED', 'subdomain'],
    [valid({ subdomain: 'api' }), 409, 'SUBDOMAIN_RESERVED', 'subdomain']
  ]
  for (const [payload, status, code, field] of cases) {
    const response = await app.inject({ method: 'POST', url: '/api/signup', payload, remoteAddress: '10.3.0.1' })
    t.equal(response.statusCode, status, `${JSON.stringify(payload)} -> ${status}`)
    const error = response.json().error
    t.equal(error.code, code)
    const named = error.details?.field ?? error.details?.fields?.map((f: { field: string }) => f.field).join(',')
    t.match(named, field, `names ${field}`)
  }
  t.same(await counts(orm), { tenants: 0, users: 0 })
})
