import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { login } from '../../../support/password-flow.ts'

const change = (token: string, payload: Record<string, unknown>) => ({ method: 'POST' as const, url: '/api/me/password', headers: bearer(token), payload })

t.test('change: needs the current password; ends every other session, keeps this one; recorded', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const other = await signup(app)
  const second = (await login(app, admin.email, admin.password)).json().token

  const wrong = await app.inject(change(admin.token, { current_password: 'not my password', new_password: 'the next passphrase 1' }))
  t.equal(wrong.statusCode, 403)
  t.equal(wrong.json().error.code, 'PASSWORD_INCORRECT')
  const weak = await app.inject(change(admin.token, { current_password: admin.password, new_password: admin.email }))
  t.equal(weak.json().error.code, 'WEAK_PASSWORD', 'the sign-up rules')
  t.equal((await app.inject(change(admin.token, { current_password: admin.password, new_password: 'short' }))).statusCode, 400)

  const done = await app.inject(change(admin.token, { current_password: admin.password, new_password: 'the next passphrase 1' }))
  t.same(done.json(), { success: true, sessions_ended: 1 })
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })).statusCode, 200, 'this session stays')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(second) })).statusCode, 401, 'the other one ended')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(other.token) })).statusCode, 200, 'another company is untouched')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 401)
  t.equal((await login(app, admin.email, 'the next passphrase 1')).statusCode, 200)
  const [row] = await orm.em.getConnection().execute("SELECT actor_id AS actor FROM activities WHERE type = 'password.changed'")
  t.equal(row?.actor, admin.user.id)
  t.equal((await app.inject({ method: 'POST', url: '/api/me/password', payload: { current_password: 'x', new_password: 'y'.repeat(12) } })).statusCode, 401)
})

t.test('change is rate limited per account', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_ACCOUNT: '2' } })
  const admin = await signup(app)
  for (const _ of [1, 2]) t.equal((await app.inject(change(admin.token, { current_password: 'guess guess', new_password: 'the next passphrase 1' }))).statusCode, 403)
  t.equal((await app.inject(change(admin.token, { current_password: admin.password, new_password: 'the next passphrase 1' }))).statusCode, 429)
})
