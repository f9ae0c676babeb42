import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { enableTwoFactor, login, secondStep, totpCode } from '../../../support/two-factor.ts'

const regenerate = (app: FastifyInstance, token: string, payload: Record<string, string>) =>
  app.inject({ method: 'POST', url: '/api/me/2fa/recovery-codes', headers: bearer(token), payload })

const storedCodes = async (app: FastifyInstance, userId: string) =>
  JSON.stringify(await app.sql({ text: 'SELECT id, code_hash, used_at FROM two_factor_recovery_codes WHERE user_id = $1 ORDER BY id', values: [userId] }))

const challengeOf = async (app: FastifyInstance, email: string, password: string) =>
  (await login(app, email, password)).json().error.details.challenge as string

const codesLeft = async (app: FastifyInstance, token: string) =>
  (await app.inject({ method: 'GET', url: '/api/me/2fa', headers: bearer(token) })).json().two_factor.recovery_codes_left

t.test('ten new codes with a current code: stored hashed, the old ones stop working, each new one works once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app, { name: 'Rita Regen' })
  const { secret, recoveryCodes: old } = await enableTwoFactor(app, admin.token)
  const spent = await secondStep(app, { challenge: await challengeOf(app, admin.email, admin.password), recovery_code: old[0]! })
  t.equal(spent.statusCode, 200)
  t.equal(await codesLeft(app, admin.token), 9, 'the status counts unused codes')

  const done = await regenerate(app, admin.token, { code: totpCode(secret, 1) })
  t.equal(done.statusCode, 200)
  const codes: string[] = done.json().recovery_codes
  t.equal(codes.length, 10)
  t.equal(new Set(codes).size, 10)
  for (const code of codes) t.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/)
  t.notOk(codes.some((code) => old.includes(code)), 'all new')
  t.equal(await codesLeft(app, admin.token), 10)
  const stored = await app.sql<{ code_hash: string }>({ text: 'SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = $1', values: [admin.user.id] })
  t.equal(stored.length, 10, 'only the new ones are kept')
  t.notOk(stored.some((row) => codes.some((code) => row.code_hash.includes(code.replace('-', '')))), 'as hashes')

  for (const previous of [old[1]!, old[9]!]) {
    const refused = await secondStep(app, { challenge: await challengeOf(app, admin.email, admin.password), recovery_code: previous })
    t.equal(refused.json().error.code, 'TWO_FACTOR_CODE_INVALID', 'an old code no longer signs in')
  }
  const first = await secondStep(app, { challenge: await challengeOf(app, admin.email, admin.password), recovery_code: codes[4]! })
  t.equal(first.statusCode, 200, 'a new code signs in')
  const reused = await secondStep(app, { challenge: await challengeOf(app, admin.email, admin.password), recovery_code: codes[4]! })
  t.equal(reused.json().error.code, 'TWO_FACTOR_CODE_INVALID', 'once')
  t.equal(await codesLeft(app, admin.token), 9)

  const [activity] = await app.sql<{ actor_name: string, target_id: string }>({
    text: "SELECT actor_name, target_id FROM activities WHERE type = 'two_factor.recovery_codes_regenerated'", values: []
  })
  t.same(activity, { actor_name: 'Rita Regen', target_id: admin.user.id })
})

t.test('a wrong, replayed or missing proof is refused and changes nothing; a recovery code is a proof too', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { secret, usedCode, recoveryCodes } = await enableTwoFactor(app, admin.token)
  const before = await storedCodes(app, admin.user.id)

  const wrongCode = totpCode(secret, 1) === '000000' ? '111111' : '000000'
  const wrong = await regenerate(app, admin.token, { code: wrongCode })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().error.code, 'TWO_FACTOR_CODE_INVALID')
  t.equal((await regenerate(app, admin.token, { code: usedCode })).json().error.code, 'TWO_FACTOR_CODE_INVALID', 'the code that turned it on is spent')
  t.equal((await regenerate(app, admin.token, { recovery_code: 'aaaaa-bbbbb' })).statusCode, 401)
  t.equal((await regenerate(app, admin.token, {})).statusCode, 400, 'a proof is required')
  t.equal(await storedCodes(app, admin.user.id), before, 'the codes are untouched')
  const [row] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE type = 'two_factor.recovery_codes_regenerated'", values: [] })
  t.equal(row?.n, 0, 'nothing recorded')

  const byRecovery = await regenerate(app, admin.token, { recovery_code: recoveryCodes[2]! })
  t.equal(byRecovery.statusCode, 200)
  t.equal(await codesLeft(app, admin.token), 10, 'the proof was spent and every code replaced')
})

t.test('two regenerations at once, each with its own recovery code: one wins, the other\'s code is already gone', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const { recoveryCodes } = await enableTwoFactor(app, admin.token)
  const answers = await Promise.all([regenerate(app, admin.token, { recovery_code: recoveryCodes[0]! }), regenerate(app, admin.token, { recovery_code: recoveryCodes[1]! })])
  t.same(answers.map((a) => a.statusCode).sort(), [200, 401])
  const winner = answers.find((a) => a.statusCode === 200)!.json().recovery_codes as string[]
  const stored = await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM two_factor_recovery_codes WHERE user_id = $1 AND used_at IS NULL', values: [admin.user.id] })
  t.equal(stored[0]?.n, 10, 'exactly one set of ten')
  t.equal(winner.length, 10)
})

t.test('without the factor on: 409 TWO_FACTOR_NOT_ENABLED; attempts share the two-factor budget (429)', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_ACCOUNT: '3' } })
  const admin = await signup(app)
  const off = await regenerate(app, admin.token, { code: '123456' })
  t.equal(off.statusCode, 409)
  t.equal(off.json().error.code, 'TWO_FACTOR_NOT_ENABLED')
  t.equal((await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(admin.token) })).statusCode, 200)
  const pending = await regenerate(app, admin.token, { code: '123456' })
  t.equal(pending.json().error.code, 'TWO_FACTOR_NOT_ENABLED', 'a pending enrolment has no codes to replace')
  t.equal((await regenerate(app, admin.token, { code: '123456' })).statusCode, 409)
  const limited = await regenerate(app, admin.token, { code: '123456' })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal((await regenerate(app, admin.token, { code: '123456' })).statusCode, 429)
})
