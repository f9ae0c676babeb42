import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

t.test('login returns a token and the user', async (t) => {
  const { app, orm } = await build(t)
  const account = await signup(app)
  const response = await app.inject({ method: 'POST', url: '/api/login', payload: { login: account.email.toUpperCase(), password: account.password } })
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.match(body, { success: true, token_type: 'Bearer', expires_in: 43200, user: { id: account.user.id, email: account.email, login: account.email, is_admin: true, role: 'admin', tenant_id: account.user.tenant_id } })
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(body.token) })).statusCode, 200)
  const [row] = await orm.em.getConnection().execute('SELECT last_login_at FROM users WHERE id = ?', [account.user.id])
  t.ok(row?.last_login_at, 'last login recorded')
})

t.test('unknown e-mail and wrong password get the same 401', async (t) => {
  const { app } = await build(t)
  const account = await signup(app)
  const wrong = await app.inject({ method: 'POST', url: '/api/login', payload: { login: account.email, password: 'wrong password!' } })
  const unknown = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'nobody@example.com', password: 'wrong password!' } })
  t.equal(wrong.statusCode, 401)
  t.equal(unknown.statusCode, 401)
  t.same(wrong.json().error, unknown.json().error)
  t.equal(wrong.json().error.code, 'INVALID_CREDENTIALS')
})

t.test('a deactivated user cannot log in, and a suspended tenant neither', async (t) => {
  const { app, orm } = await build(t)
  const member = await signup(app)
  await orm.em.getConnection().execute('UPDATE users SET active = false WHERE id = ?', [member.user.id])
  const disabled = await app.inject({ method: 'POST', url: '/api/login', payload: { login: member.email, password: member.password } })
  t.equal(disabled.statusCode, 403)
  t.equal(disabled.json().error.code, 'ACCOUNT_DISABLED')
  const wrongPassword = await app.inject({ method: 'POST', url: '/api/login', payload: { login: member.email, password: 'not the password' } })
  t.equal(wrongPassword.json().error.code, 'INVALID_CREDENTIALS', 'nothing revealed without the right password')

  const other = await signup(app)
  await orm.em.getConnection().execute("UPDATE tenants SET status = 'suspended' WHERE id = ?", [other.user.tenant_id])
  const suspended = await app.inject({ method: 'POST', url: '/api/login', payload: { login: other.email, password: other.password } })
  t.equal(suspended.statusCode, 403)
  t.equal(suspended.json().error.code, 'TENANT_SUSPENDED')
})
