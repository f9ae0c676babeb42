import { createSigner } from 'fast-jwt'
import t from 'tap'
import { TEST_JWT_SECRET, build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

t.test('logout stops that token at once and leaves other sessions alone', async (t) => {
  const { app } = await build(t)
  const account = await signup(app)
  const second = (await app.inject({ method: 'POST', url: '/api/login', payload: { login: account.email, password: account.password } })).json().token

  const logout = await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(account.token) })
  t.equal(logout.statusCode, 200)
  t.same(logout.json(), { success: true })

  const after = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })
  t.equal(after.statusCode, 401)
  t.equal(after.json().error.code, 'TOKEN_INVALID')
  t.equal((await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(account.token) })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(second) })).statusCode, 200, 'the other session still works')
})

t.test('a deactivated user\'s token answers 401 on the next request', async (t) => {
  const { app, orm } = await build(t)
  const account = await signup(app)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })).statusCode, 200)
  await orm.em.getConnection().execute('UPDATE users SET active = false WHERE id = ?', [account.user.id])
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })).statusCode, 401)
})

t.test('a suspended tenant\'s tokens stop working', async (t) => {
  const { app, orm } = await build(t)
  const account = await signup(app)
  await orm.em.getConnection().execute("UPDATE tenants SET status = 'suspended' WHERE id = ?", [account.user.tenant_id])
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })).statusCode, 401)
})

t.test('forged, expired and malformed tokens are refused', async (t) => {
  const { app, orm, config } = await build(t)
  const account = await signup(app)
  const claims = JSON.parse(Buffer.from(account.token.split('.')[1] ?? '', 'base64url').toString())
  const sign = (key: string, extra: Record<string, unknown> = {}, algorithm: 'HS256' | 'none' = 'HS256') =>
    createSigner({ key: algorithm === 'none' ? undefined : key, algorithm, iss: config.BASE_URL, aud: 'portal', expiresIn: 60_000 } as never)({ sid: claims.sid, tid: claims.tid, sub: claims.sub, ...extra })

  const cases: Record<string, string> = {
    'other secret': sign('another-secret-that-is-long-enough-0000000'),
    'alg none': sign('', {}, 'none'),
    'other tenant claim': sign(TEST_JWT_SECRET, { tid: '00000000-0000-4000-8000-000000000000' }),
    'other user claim': sign(TEST_JWT_SECRET, { sub: '00000000-0000-4000-8000-000000000000' }),
    'not a uuid': sign(TEST_JWT_SECRET, { sid: "' OR 1=1 --" }),
    truncated: account.token.slice(0, -5),
    garbage: 'abc.def.ghi'
  }
  for (const [name, token] of Object.entries(cases)) {
    const response = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })
    t.equal(response.statusCode, 401, name)
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Basic ${account.token}` } })).json().error.code, 'TOKEN_MISSING')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(sign(TEST_JWT_SECRET)) })).statusCode, 200, 'a correctly signed copy of the claims is accepted (control)')

  await orm.em.getConnection().execute("UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE id = ?", [claims.sid])
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })).statusCode, 401, 'expired session')
})

t.test('a token accepted before its exp is refused after it, though verified tokens are remembered', async (t) => {
  const { app, config } = await build(t)
  const account = await signup(app)
  const claims = JSON.parse(Buffer.from(account.token.split('.')[1] ?? '', 'base64url').toString())
  const exp = Math.floor(Date.now() / 1000) + 2
  const shortLived = createSigner({ key: TEST_JWT_SECRET, algorithm: 'HS256', iss: config.BASE_URL, aud: 'portal' } as never)({ sid: claims.sid, tid: claims.tid, sub: claims.sub, exp })
  for (let i = 0; i < 3; i++) {
    t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(shortLived) })).statusCode, 200, `use ${i + 1} before exp`)
  }
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50))
  const after = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(shortLived) })
  t.equal(after.statusCode, 401, 'the remembered verification ends at exp')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(account.token) })).statusCode, 200, 'the session itself is still open (control)')
})
