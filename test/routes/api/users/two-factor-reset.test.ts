import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup, type SignedUp } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { agentRows, connectAgent } from '../../../support/password-flow.ts'
import { tenantSnapshot } from '../../../support/snapshot.ts'
import { enableTwoFactor, login, secondStep, totpCode } from '../../../support/two-factor.ts'

const reset = (app: FastifyInstance, token: string, userId: string) =>
  app.inject({ method: 'POST', url: `/api/users/${userId}/2fa/reset`, headers: bearer(token) })

const me = async (app: FastifyInstance, token: string) => (await app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).statusCode

async function factorOf (app: FastifyInstance, userId: string): Promise<{ factor: number, codes: number }> {
  const [row] = await app.sql<{ factor: number, codes: number }>({
    text: `SELECT (SELECT count(*)::int FROM user_two_factor WHERE user_id = $1) AS factor,
                  (SELECT count(*)::int FROM two_factor_recovery_codes WHERE user_id = $1) AS codes`,
    values: [userId]
  })
  return row!
}

/** A tenant's rows, plus what the reset touches and the generic snapshot leaves out: factors, codes, sessions. */
async function snapshot (app: FastifyInstance, tenantId: string): Promise<string> {
  const [factors, codes, sessions] = await Promise.all([
    app.sql({ text: 'SELECT user_id, sealed_secret, enabled_at, last_used_step FROM user_two_factor WHERE tenant_id = $1 ORDER BY user_id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, code_hash, used_at FROM two_factor_recovery_codes WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, revoked_at FROM portal_sessions WHERE tenant_id = $1 ORDER BY id', values: [tenantId] })
  ])
  return await tenantSnapshot(app, tenantId) + JSON.stringify([factors, codes, sessions])
}

/** A member with the factor on, signed in twice (the second time with a code) and with a connected agent. */
async function memberWithFactor (app: FastifyInstance, admin: SignedUp, grantId: string) {
  const member = await addMember(app, admin.user.tenant_id, { name: 'Mara Member' })
  const { secret } = await enableTwoFactor(app, member.token)
  const { challenge } = (await login(app, member.email, member.password)).json().error.details
  const second = await secondStep(app, { challenge, code: totpCode(secret, 1) })
  if (second.statusCode !== 200) throw new Error(`second login failed: ${second.body}`)
  await connectAgent(app, member.user.id, grantId)
  return { ...member, secondToken: second.json().token as string }
}

t.test('an admin resets a member\'s lost factor: factor and codes gone, sessions and agents ended, a notice e-mailed, the password alone signs in', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, PRODUCT_NAME: 'Acme Cloud' } })
  const admin = await signup(app, { name: 'Ada Admin' })
  const member = await memberWithFactor(app, admin, 'grant-member')
  const colleague = await addMember(app, admin.user.tenant_id)
  await enableTwoFactor(app, colleague.token)
  await connectAgent(app, colleague.user.id, 'grant-colleague')
  t.same(await factorOf(app, member.user.id), { factor: 1, codes: 10 })

  const done = await reset(app, admin.token, member.user.id)
  t.equal(done.statusCode, 200)
  t.same(done.json(), { success: true, sessions_ended: 2, agents_disconnected: 1, enrolment_required: false })

  t.same(await factorOf(app, member.user.id), { factor: 0, codes: 0 }, 'secret and recovery codes deleted')
  t.equal(await me(app, member.token), 401, 'first session ended')
  t.equal(await me(app, member.secondToken), 401, 'second session ended')
  t.equal(await agentRows(app, member.user.id), 0, 'the agent grant, its tokens and auth server session are gone')
  t.same(await factorOf(app, colleague.user.id), { factor: 1, codes: 10 }, 'a colleague keeps their factor')
  t.equal(await agentRows(app, colleague.user.id), 3, 'and their agent')
  t.equal(await me(app, colleague.token), 200, 'and their session')
  t.equal(await me(app, admin.token), 200, 'the admin stays signed in')

  const mail = await smtp.nextMail({ to: member.email })
  t.equal(mail.subject, 'Your Acme Cloud two-factor authentication was reset')
  t.match(mail.text, /Ada Admin, an administrator of your company, removed the second factor/)
  t.match(mail.text, /sign in with your password alone/)
  t.match(mail.text, /Sign in: http:\/\/portal\.test\/login/)
  t.match(mail.html, /Sign in<\/a>/)

  const [activity] = await app.sql<{ type: string, actor_id: string, actor_name: string, target_type: string, target_id: string }>({
    text: "SELECT type, actor_id, actor_name, target_type, target_id FROM activities WHERE type = 'two_factor.reset'", values: []
  })
  t.same(activity, { type: 'two_factor.reset', actor_id: admin.user.id, actor_name: 'Ada Admin', target_type: 'user', target_id: member.user.id }, 'actor and target recorded')

  const again = await login(app, member.email, member.password)
  t.equal(again.statusCode, 200, 'the password alone signs in: no code asked')
  t.equal(await me(app, again.json().token), 200)
  t.equal((await reset(app, admin.token, member.user.id)).json().error.code, 'TWO_FACTOR_NOT_ENABLED', 'a second reset finds nothing to reset')
})

t.test('in a company that requires the factor, the member is led to enrolment at the next login', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const member = await memberWithFactor(app, admin, 'grant-required')
  const set = await app.inject({ method: 'PUT', url: '/api/settings/update', headers: bearer(admin.token), payload: { security: { require_two_factor: true } } })
  t.equal(set.statusCode, 200)

  const done = await reset(app, admin.token, member.user.id)
  t.equal(done.statusCode, 200)
  t.equal(done.json().enrolment_required, true)
  const mail = await smtp.nextMail({ to: member.email })
  t.match(mail.text, /requires two-factor authentication: when you next sign in with your password, you will be asked to set up an authenticator app again/)

  const next = await login(app, member.email, member.password)
  t.equal(next.statusCode, 403)
  t.equal(next.json().error.code, 'TWO_FACTOR_ENROLMENT_REQUIRED', 'the existing login flow asks for a new factor')
  const { challenge } = next.json().error.details
  const { secret } = (await app.inject({ method: 'POST', url: '/api/login/2fa/enrol', payload: { challenge } })).json()
  const enrolled = await app.inject({ method: 'POST', url: '/api/login/2fa/enrol/verify', payload: { challenge, code: totpCode(secret) } })
  t.equal(enrolled.statusCode, 200, 'a new factor set up, signed in')
  t.equal(enrolled.json().recovery_codes.length, 10)
})

t.test('refusals change nothing: a plain user, another company\'s user, oneself, a person without a factor', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  await enableTwoFactor(app, admin.token)
  const member = await memberWithFactor(app, admin, 'grant-refusals')
  const plain = await addMember(app, admin.user.tenant_id)
  const pending = await addMember(app, admin.user.tenant_id)
  t.equal((await app.inject({ method: 'POST', url: '/api/me/2fa', headers: bearer(pending.token) })).statusCode, 200, 'an enrolment started, never confirmed')
  const other = await signup(app)
  const otherMember = await memberWithFactor(app, other, 'grant-other')

  const before = await snapshot(app, admin.user.tenant_id)
  const otherBefore = await snapshot(app, other.user.tenant_id)

  const byUser = await reset(app, plain.token, member.user.id)
  t.equal(byUser.statusCode, 403)
  t.match(byUser.json(), { success: false, error: { code: 'FORBIDDEN' } }, 'the envelope')
  t.type(byUser.json().request_id, 'string')

  const byOtherAdmin = await reset(app, other.token, member.user.id)
  t.equal(byOtherAdmin.statusCode, 404)
  t.equal(byOtherAdmin.json().error.code, 'USER_NOT_FOUND', 'another company\'s user does not exist for them')
  const intoOther = await reset(app, admin.token, otherMember.user.id)
  t.equal(intoOther.json().error.code, 'USER_NOT_FOUND')
  const unknown = await reset(app, admin.token, '00000000-0000-4000-8000-000000000000')
  t.equal(unknown.json().error.code, 'USER_NOT_FOUND')

  const self = await reset(app, admin.token, admin.user.id)
  t.equal(self.statusCode, 409)
  t.equal(self.json().error.code, 'TWO_FACTOR_RESET_OWN')
  t.match(self.json().error.message, /\/api\/me\/2fa/)

  for (const person of [plain, pending]) {
    const none = await reset(app, admin.token, person.user.id)
    t.equal(none.statusCode, 409)
    t.equal(none.json().error.code, 'TWO_FACTOR_NOT_ENABLED', 'no factor on (none, or only a pending enrolment)')
  }
  t.equal((await reset(app, admin.token, 'not-an-id')).statusCode, 400)

  t.equal(await snapshot(app, admin.user.tenant_id), before, 'nothing changed in the company')
  t.equal(await snapshot(app, other.user.tenant_id), otherBefore, 'nor in the other one')
  t.equal(await agentRows(app, member.user.id), 3, 'the member\'s agent stays')
  t.equal(await me(app, member.token), 200, 'and their session')
  t.equal(smtp.received.length, 0, 'no mail sent')
})

t.test('two admins resetting the same member at once: one resets, the other finds no factor', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const second = await addMember(app, admin.user.tenant_id, { role: 'admin' })
  const member = await memberWithFactor(app, admin, 'grant-race')
  const answers = await Promise.all([reset(app, admin.token, member.user.id), reset(app, second.token, member.user.id)])
  t.same(answers.map((a) => a.statusCode).sort(), [200, 409])
  const [row] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE type = 'two_factor.reset'", values: [] })
  t.equal(row?.n, 1, 'one reset recorded')
  const [outbox] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM mail_outbox WHERE kind = 'two-factor-reset'", values: [] })
  t.equal(outbox?.n, 1, 'one notice')
})
