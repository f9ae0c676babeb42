import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { enableTwoFactor, totpCode } from '../../../support/two-factor.ts'

const activityTypes = async (app: Awaited<ReturnType<typeof build>>['app'], tenantId: string) =>
  (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE tenant_id = $1 ORDER BY id', values: [tenantId] })).map((row) => row.type)

t.test('enrolment: a secret, an otpauth URI and a QR code; nothing changes until the first code', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const started = await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(admin.token) })
  t.equal(started.statusCode, 200)
  const body = started.json()
  t.match(body.secret, /^[A-Z2-7]{32}$/, '160-bit base32 secret')
  const uri = new URL(body.otpauth_uri)
  t.equal(uri.protocol, 'otpauth:')
  t.equal(uri.host, 'totp')
  t.equal(decodeURIComponent(uri.pathname), `/ERP Portal:${admin.email}`)
  t.equal(uri.searchParams.get('secret'), body.secret)
  t.equal(uri.searchParams.get('issuer'), 'ERP Portal')
  t.match(body.qr_code, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/)
  t.ok(Buffer.from(body.qr_code.split(',')[1], 'base64').subarray(1, 4).toString() === 'PNG', 'a PNG image')

  const [stored] = await app.sql<{ sealed_secret: string, enabled_at: Date | null }>({ text: 'SELECT sealed_secret, enabled_at FROM user_two_factor WHERE user_id = $1', values: [admin.user.id] })
  t.equal(stored?.enabled_at, null, 'pending')
  t.notMatch(stored?.sealed_secret, body.secret, 'the secret is sealed, not stored in clear')
  t.match(stored?.sealed_secret, /^v1\./)

  const status = await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(admin.token) })
  t.same(status.json().two_factor, { enabled: false, enabled_at: null, recovery_codes_left: 0, required_by_company: false })
  const loginWhilePending = await app.inject({ method: 'POST', url: '/api/login', payload: { login: admin.email, password: admin.password } })
  t.equal(loginWhilePending.statusCode, 200, 'a pending secret does not change the login')
})

t.test('verify: a wrong code changes nothing; the right one turns it on with ten hashed single-use recovery codes', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret } = (await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(admin.token) })).json()
  const wrongCode = totpCode(secret) === '000000' ? '111111' : '000000'
  const wrong = await app.inject({ method: 'POST', url: '/api/me/2fa/verify', headers: bearer(admin.token), payload: { code: wrongCode } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().error.code, 'TWO_FACTOR_CODE_INVALID')
  const malformed = await app.inject({ method: 'POST', url: '/api/me/2fa/verify', headers: bearer(admin.token), payload: { code: 'abcdef' } })
  t.equal(malformed.statusCode, 400)

  const right = await app.inject({ method: 'POST', url: '/api/me/2fa/verify', headers: bearer(admin.token), payload: { code: totpCode(secret) } })
  t.equal(right.statusCode, 200)
  const codes: string[] = right.json().recovery_codes
  t.equal(codes.length, 10)
  t.equal(new Set(codes).size, 10)
  for (const code of codes) t.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/)
  const stored = await app.sql<{ code_hash: string }>({ text: 'SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = $1', values: [admin.user.id] })
  t.equal(stored.length, 10)
  t.notOk(stored.some((row) => codes.some((code) => row.code_hash.includes(code.replace('-', '')))), 'only hashes are stored')

  const again = await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(admin.token) })
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'TWO_FACTOR_ALREADY_ENABLED')
  const status = (await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(admin.token) })).json().two_factor
  t.equal(status.enabled, true)
  t.equal(status.recovery_codes_left, 10)
  t.same(await activityTypes(app, admin.user.tenant_id), ['two_factor.enabled'])
})

t.test('verify without a pending enrolment: 409 TWO_FACTOR_NOT_PENDING', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const response = await app.inject({ method: 'POST', url: '/api/me/2fa/verify', headers: bearer(admin.token), payload: { code: '123456' } })
  t.equal(response.statusCode, 409)
  t.equal(response.json().error.code, 'TWO_FACTOR_NOT_PENDING')
})

t.test('disable: needs a current code or a recovery code; a wrong one changes nothing', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { recoveryCodes, usedCode } = await enableTwoFactor(app, admin.token)
  const disable = (payload: Record<string, string>) => app.inject({ method: 'POST', url: '/api/me/2fa/disable', headers: bearer(admin.token), payload })

  t.equal((await disable({})).statusCode, 400, 'a proof is required')
  const replay = await disable({ code: usedCode })
  t.equal(replay.statusCode, 401, 'the code that turned it on cannot be used again')
  t.equal((await disable({ recovery_code: 'aaaaa-bbbbb' })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(admin.token) })).json().two_factor.enabled, true)

  const done = await disable({ recovery_code: recoveryCodes[3]!.toUpperCase() })
  t.equal(done.statusCode, 200, 'a recovery code works, case does not matter')
  t.same((await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(admin.token) })).json().two_factor,
    { enabled: false, enabled_at: null, recovery_codes_left: 0, required_by_company: false })
  const rows = await app.sql<{ n: string }>({ text: 'SELECT (SELECT count(*) FROM user_two_factor) + (SELECT count(*) FROM two_factor_recovery_codes) AS n', values: [] })
  t.equal(Number(rows[0]?.n), 0, 'secret and codes are gone')
  t.same(await activityTypes(app, admin.user.tenant_id), ['two_factor.enabled', 'two_factor.recovery_code_used', 'two_factor.disabled'])
  const notOn = await disable({ code: '123456' })
  t.equal(notOn.json().error.code, 'TWO_FACTOR_NOT_ENABLED')
})

t.test('disable with the next code of the app', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)
  const done = await app.inject({ method: 'POST', url: '/api/me/2fa/disable', headers: bearer(admin.token), payload: { code: totpCode(secret, 1) } })
  t.equal(done.statusCode, 200)
})

t.test('the routes need a token', async (t) => {
  const { app } = await build(t)
  for (const [method, url] of [['GET', '/api/me/2fa'], ['POST', '/api/me/2fa'], ['POST', '/api/me/2fa/verify'], ['POST', '/api/me/2fa/disable']] as const) {
    const response = await app.inject({ method, url, payload: method === 'POST' ? { code: '123456' } : undefined })
    t.equal(response.statusCode, 401, `${method} ${url}`)
  }
})
