import { createHash } from 'node:crypto'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { enableTwoFactor, login, secondStep, totpCode } from '../../../support/two-factor.ts'

const openSessions = async (app: Awaited<ReturnType<typeof build>>['app'], userId: string) =>
  Number((await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM portal_sessions WHERE user_id = $1 AND revoked_at IS NULL', values: [userId] }))[0]?.n)

t.test('with the factor on, the right password answers 401 TWO_FACTOR_REQUIRED with a challenge, and no session', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)

  const wrongPassword = await login(app, admin.email, 'not the password')
  t.equal(wrongPassword.json().error.code, 'INVALID_CREDENTIALS', 'a wrong password still says only that')

  const first = await login(app, admin.email, admin.password)
  t.equal(first.statusCode, 401)
  const { error } = first.json()
  t.equal(error.code, 'TWO_FACTOR_REQUIRED')
  t.match(error.details.challenge, /^[\w-]{43}$/)
  t.equal(error.details.expires_in, 300)
  t.notOk('token' in first.json())
  t.equal(await openSessions(app, admin.user.id), 1, 'only the signup session')
  const [stored] = await app.sql<{ token_hash: string, expires_at: Date }>({ text: 'SELECT token_hash, expires_at FROM login_challenges', values: [] })
  t.equal(stored?.token_hash, createHash('sha256').update(error.details.challenge).digest('hex'), 'only the hash is stored')
  t.ok(Math.abs(new Date(stored!.expires_at).getTime() - Date.now() - 300_000) < 10_000, 'five minutes')

  const done = await secondStep(app, { challenge: error.details.challenge, code: totpCode(secret, 1) })
  t.equal(done.statusCode, 200)
  t.match(done.json(), { success: true, token_type: 'Bearer', user: { id: admin.user.id } })
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(done.json().token) })).statusCode, 200, 'the token works')

  const again = await secondStep(app, { challenge: error.details.challenge, code: totpCode(secret, 1) })
  t.equal(again.statusCode, 401)
  t.equal(again.json().error.code, 'LOGIN_CHALLENGE_INVALID', 'a challenge works once')
})

t.test('a code is not replayed: the step used once is refused on the next login', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret, usedCode } = await enableTwoFactor(app, admin.token)
  const challenge = async () => (await login(app, admin.email, admin.password)).json().error.details.challenge

  const replayOfEnrolment = await secondStep(app, { challenge: await challenge(), code: usedCode })
  t.equal(replayOfEnrolment.json().error.code, 'TWO_FACTOR_CODE_INVALID', 'the code that turned the factor on')
  const code = totpCode(secret, 1)
  t.equal((await secondStep(app, { challenge: await challenge(), code })).statusCode, 200)
  const replay = await secondStep(app, { challenge: await challenge(), code })
  t.equal(replay.statusCode, 401)
  t.equal(replay.json().error.code, 'TWO_FACTOR_CODE_INVALID')
})

t.test('recovery codes: each works once, and is recorded in the activity feed', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { recoveryCodes } = await enableTwoFactor(app, admin.token)
  const challenge = async () => (await login(app, admin.email, admin.password)).json().error.details.challenge
  const used = await secondStep(app, { challenge: await challenge(), recovery_code: ` ${recoveryCodes[0]!.replace('-', '')} ` })
  t.equal(used.statusCode, 200, 'without its hyphen, with spaces')
  const reused = await secondStep(app, { challenge: await challenge(), recovery_code: recoveryCodes[0]! })
  t.equal(reused.json().error.code, 'TWO_FACTOR_CODE_INVALID')
  const status = await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(used.json().token) })
  t.equal(status.json().two_factor.recovery_codes_left, 9)
  const rows = await app.sql<{ type: string, actor_name: string }>({ text: "SELECT type, actor_name FROM activities WHERE type = 'two_factor.recovery_code_used'", values: [] })
  t.equal(rows.length, 1)
})

t.test('two answers to one challenge at once: exactly one session', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { recoveryCodes } = await enableTwoFactor(app, admin.token)
  const { challenge } = (await login(app, admin.email, admin.password)).json().error.details
  const answers = await Promise.all(recoveryCodes.slice(0, 4).map((code) => secondStep(app, { challenge, recovery_code: code })))
  t.same(answers.map((a) => a.statusCode).sort(), [200, 401, 401, 401])
  t.equal(await openSessions(app, admin.user.id), 2, 'the signup session and one more')
  const left = await app.sql<{ n: string }>({ text: 'SELECT count(*) AS n FROM two_factor_recovery_codes WHERE used_at IS NULL', values: [] })
  t.equal(Number(left[0]?.n), 9, 'the refused answers spent no recovery code')
})

t.test('wrong codes: counted per challenge, which is spent after TWO_FACTOR_MAX_ATTEMPTS', async (t) => {
  const { app } = await build(t, { env: { TWO_FACTOR_MAX_ATTEMPTS: '3' } })
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)
  const { challenge } = (await login(app, admin.email, admin.password)).json().error.details
  const right = totpCode(secret, 1)
  const wrong = right === '000000' ? '111111' : '000000'
  for (let i = 0; i < 3; i++) t.equal((await secondStep(app, { challenge, code: wrong })).json().error.code, 'TWO_FACTOR_CODE_INVALID')
  const late = await secondStep(app, { challenge, code: right })
  t.equal(late.json().error.code, 'LOGIN_CHALLENGE_INVALID', 'the right code after three wrong ones')
  t.equal(await openSessions(app, admin.user.id), 1)
})

t.test('wrong codes are rate limited per client address across challenges', async (t) => {
  const { app } = await build(t, { env: { TWO_FACTOR_LIMIT_PER_IP: '3' } })
  const admin = await signup(app)
  await enableTwoFactor(app, admin.token)
  const { challenge } = (await login(app, admin.email, admin.password, '10.41.0.1')).json().error.details
  for (let i = 0; i < 3; i++) t.equal((await secondStep(app, { challenge, code: '000000' }, '10.41.0.2')).statusCode, 401)
  const limited = await secondStep(app, { challenge, code: '000000' }, '10.41.0.2')
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal((await secondStep(app, { challenge, code: '000000' }, '10.41.0.3')).statusCode, 401, 'another address has its own budget')
})

t.test('an expired challenge, a deactivated account, bad bodies', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret } = await enableTwoFactor(app, admin.token)
  const { challenge } = (await login(app, admin.email, admin.password)).json().error.details
  await app.sql({ text: "UPDATE login_challenges SET expires_at = now() - interval '1 second'", values: [] })
  t.equal((await secondStep(app, { challenge, code: totpCode(secret, 1) })).json().error.code, 'LOGIN_CHALLENGE_INVALID')

  for (const body of [{ challenge }, { code: '123456' }, { challenge: 'short', code: '123456' }, { challenge, code: '123456', extra: 'x' }]) {
    const response = await secondStep(app, body as Record<string, string>)
    t.equal(response.statusCode, 400, JSON.stringify(Object.keys(body)))
    t.equal(response.json().success, false)
  }
  const unknown = await secondStep(app, { challenge: 'A'.repeat(43), code: '123456' })
  t.equal(unknown.json().error.code, 'LOGIN_CHALLENGE_INVALID')

  const fresh = (await login(app, admin.email, admin.password)).json().error.details.challenge
  await app.sql({ text: 'UPDATE users SET active = false WHERE id = $1', values: [admin.user.id] })
  const disabled = await secondStep(app, { challenge: fresh, code: totpCode(secret, 1) })
  t.equal(disabled.statusCode, 403)
  t.equal(disabled.json().error.code, 'ACCOUNT_DISABLED')
})
