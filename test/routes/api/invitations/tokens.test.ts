import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { accept, inviteAndReadToken, inviteBody, preview } from '../../../support/invitations-flow.ts'

const resend = (id: string) => ({ method: 'POST' as const, url: `/api/users/invitation/${id}/resend` })
const cancel = (id: string) => ({ method: 'POST' as const, url: `/api/users/invitation/${id}/cancel` })

t.test('unknown, expired, cancelled and used tokens each answer 404 with their own code', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app, { company: 'Secretive Corp' })
  const sql = orm.em.getConnection()

  const expired = await inviteAndReadToken(app, smtp, admin.token)
  await sql.execute("UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = ?", [expired.invitation.id])
  const cancelled = await inviteAndReadToken(app, smtp, admin.token)
  t.equal((await app.inject({ ...cancel(cancelled.invitation.id), headers: bearer(admin.token) })).statusCode, 200)
  const used = await inviteAndReadToken(app, smtp, admin.token)
  t.equal((await accept(app, used.token)).statusCode, 200)

  const cases = {
    INVITATION_NOT_FOUND: 'A'.repeat(43),
    INVITATION_EXPIRED: expired.token,
    INVITATION_CANCELLED: cancelled.token,
    INVITATION_USED: used.token
  }
  for (const [code, token] of Object.entries(cases)) {
    for (const response of [await preview(app, token), await accept(app, token)]) {
      t.equal(response.statusCode, 404, code)
      t.equal(response.json().error.code, code)
      t.notMatch(response.body, /Secretive|@example\.com/, 'says nothing about the company or the invitee')
    }
  }
  const absurd = await preview(app, 'x'.repeat(300))
  t.ok(absurd.statusCode >= 400 && absurd.statusCode < 500, `an absurdly long token is refused (${absurd.statusCode})`)

  const [users] = await sql.execute('SELECT count(*)::int AS n FROM users WHERE tenant_id = ?', [admin.user.tenant_id])
  t.equal(users?.n, 2, 'only the admin and the one accepted invitee')
})

t.test('resend: a new link, the old one dies at once, expiry renewed; pending only', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const { invitation, token: oldToken } = await inviteAndReadToken(app, smtp, admin.token)
  await orm.em.getConnection().execute("UPDATE invitations SET expires_at = now() - interval '1 day' WHERE id = ?", [invitation.id])

  const list = await app.inject({ method: 'GET', url: '/api/users/invitations', headers: bearer(admin.token) })
  t.match(list.json(), { success: true, total: 1, page: 1, per_page: 25, invitations: [{ id: invitation.id, status: 'expired' }] }, 'expired invitations are listed as such')

  const resent = await app.inject({ ...resend(invitation.id), headers: bearer(admin.token) })
  t.equal(resent.statusCode, 200)
  t.match(resent.json().invitation, { id: invitation.id, status: 'pending', send_count: 2 })
  t.ok(Date.parse(resent.json().invitation.expires_at) > Date.now() + 6 * 86_400_000, 'expiry renewed')
  const newToken = (await smtp.nextMail({ to: invitation.email })).text.match(/token=([\w-]{43})/)?.[1] ?? ''
  t.not(newToken, oldToken)

  t.equal((await preview(app, oldToken)).json().error.code, 'INVITATION_NOT_FOUND', 'the old link is dead')
  t.equal((await accept(app, oldToken)).json().error.code, 'INVITATION_NOT_FOUND')
  t.equal((await preview(app, newToken)).statusCode, 200)
  t.equal((await accept(app, newToken)).statusCode, 200, 'the new link works')

  const again = await app.inject({ ...resend(invitation.id), headers: bearer(admin.token) })
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'INVITATION_NOT_PENDING')
  t.match(again.json().error.message, /accepted/)
  t.equal((await app.inject({ ...cancel(invitation.id), headers: bearer(admin.token) })).json().error.code, 'INVITATION_NOT_PENDING')
  const unknown = await app.inject({ ...resend('00000000-0000-4000-8000-000000000000'), headers: bearer(admin.token) })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'INVITATION_NOT_FOUND')
})

t.test('resend is limited per invitation (INVITATION_RESEND_LIMIT per hour)', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, INVITATION_RESEND_LIMIT: '2' } })
  const admin = await signup(app)
  const first = await inviteAndReadToken(app, smtp, admin.token)
  const second = await inviteAndReadToken(app, smtp, admin.token)
  for (let i = 0; i < 2; i++) t.equal((await app.inject({ ...resend(first.invitation.id), headers: bearer(admin.token) })).statusCode, 200)
  const limited = await app.inject({ ...resend(first.invitation.id), headers: bearer(admin.token) })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 3600)
  t.equal((await app.inject({ ...resend(second.invitation.id), headers: bearer(admin.token) })).statusCode, 200, 'other invitations are not affected')
})

t.test('cancel: the link then answers INVITATION_CANCELLED, and the address can be invited again', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const { invitation, token } = await inviteAndReadToken(app, smtp, admin.token)
  const cancelled = await app.inject({ ...cancel(invitation.id), headers: bearer(admin.token) })
  t.equal(cancelled.statusCode, 200)
  t.match(cancelled.json().invitation, { id: invitation.id, status: 'cancelled' })
  t.ok(cancelled.json().invitation.cancelled_at)
  t.equal((await preview(app, token)).json().error.code, 'INVITATION_CANCELLED')
  const list = await app.inject({ method: 'GET', url: '/api/users/invitations', headers: bearer(admin.token) })
  t.same(list.json().invitations, [], 'no longer listed')
  const reinvited = await inviteAndReadToken(app, smtp, admin.token, inviteBody({ email: invitation.email }))
  t.not(reinvited.invitation.id, invitation.id)
  t.equal((await preview(app, token)).json().error.code, 'INVITATION_CANCELLED', 'the old link stays dead')
})

t.test('five racing accepts of one token create exactly one user', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const { invitation, token } = await inviteAndReadToken(app, smtp, admin.token)

  const responses = await Promise.all(Array.from({ length: 5 }, (_, i) => accept(app, token, `racing password number ${i}`)))
  const statuses = responses.map((r) => r.statusCode).sort()
  t.same(statuses, [200, 404, 404, 404, 404])
  for (const r of responses.filter((r) => r.statusCode === 404)) t.equal(r.json().error.code, 'INVITATION_USED')
  const [users] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM users WHERE email = ?', [invitation.email])
  t.equal(users?.n, 1)
})

t.test('accept: password policy, address taken meanwhile, suspended company, per-IP limit', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const sql = orm.em.getConnection()
  const { invitation, token } = await inviteAndReadToken(app, smtp, admin.token)

  const weak = await accept(app, token, 'short')
  t.equal(weak.statusCode, 400)
  t.equal(weak.json().error.code, 'WEAK_PASSWORD')
  t.equal((await accept(app, token, invitation.email)).json().error.code, 'WEAK_PASSWORD', 'not the e-mail address')

  await signup(app, { email: invitation.email.toUpperCase() })
  const taken = await accept(app, token)
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error.code, 'EMAIL_TAKEN')
  const [row] = await sql.execute('SELECT status, accepted_user_id FROM invitations WHERE id = ?', [invitation.id])
  t.match(row, { status: 'pending', accepted_user_id: null }, 'nothing consumed')

  const second = await inviteAndReadToken(app, smtp, admin.token)
  await sql.execute("UPDATE tenants SET status = 'suspended' WHERE id = ?", [admin.user.tenant_id])
  const suspended = await accept(app, second.token)
  t.equal(suspended.statusCode, 403)
  t.equal(suspended.json().error.code, 'TENANT_SUSPENDED')

  const unknown = 'B'.repeat(43)
  for (let i = 0; i < 20; i++) t.equal((await accept(app, unknown, 'whatever password', '10.99.0.1')).statusCode, 404)
  const limited = await accept(app, unknown, 'whatever password', '10.99.0.1')
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal((await accept(app, unknown, 'whatever password', '10.99.0.2')).statusCode, 404, 'another IP is not affected')
})
