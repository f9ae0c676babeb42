import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { accept, invite, inviteBody, preview, tokenFromText } from '../../../support/invitations-flow.ts'
import { recordInstance } from '../../../support/instance-rows.ts'

t.test('invite by e-mail over SMTP, follow the link, accept, then log in', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Acme Cloud <noreply@acme.test>' } })
  const admin = await signup(app, { company: 'Widgets & Co' })

  const created = await invite(app, admin.token, { email: 'Ada.Lovelace@Example.com', name: 'Ada Lovelace', role: 'admin' })
  t.equal(created.statusCode, 201)
  const { invitation } = created.json()
  t.match(invitation, {
    email: 'ada.lovelace@example.com', name: 'Ada Lovelace', role: 'admin', instance_id: null, status: 'pending',
    invited_by: { id: admin.user.id }, send_count: 1, accepted_at: null, cancelled_at: null
  })
  t.notOk('token' in invitation || 'token_hash' in invitation, 'neither the token nor its hash is shown')
  const days = (Date.parse(invitation.expires_at) - Date.now()) / 86_400_000
  t.ok(days > 6.9 && days <= 7, 'expires after INVITATION_TTL_DAYS (7)')

  const mail = await smtp.nextMail()
  t.same(mail.to, ['ada.lovelace@example.com'])
  t.equal(mail.from, 'noreply@acme.test')
  t.equal(mail.subject, 'You\'re invited to join Widgets & Co on Acme Cloud')
  t.match(mail.text, /has invited you to join Widgets & Co on Acme Cloud as an administrator/)
  t.match(mail.text, /expires on \d{4}-\d\d-\d\d \d\d:\d\d UTC/)
  t.match(mail.html, /Widgets &#38; Co/, 'the company name is escaped in HTML')
  const token = tokenFromText(mail.text)
  t.match(mail.text, `http://portal.test/invitation/accept?token=${token}`, 'link on BASE_URL')
  t.match(mail.html, `http://portal.test/invitation/accept?token=${token}`)

  const shown = await preview(app, token)
  t.equal(shown.statusCode, 200)
  t.same(shown.json(), {
    success: true,
    invitation: { email: 'ada.lovelace@example.com', name: 'Ada Lovelace', role: 'admin', company: 'Widgets & Co', status: 'pending', expires_at: invitation.expires_at }
  })

  const accepted = await accept(app, token, 'my own secret passphrase')
  t.equal(accepted.statusCode, 200)
  const session = accepted.json()
  t.match(session, { success: true, token_type: 'Bearer', expires_in: 43200, user: { email: 'ada.lovelace@example.com', name: 'Ada Lovelace', role: 'admin', is_admin: true, tenant_id: admin.user.tenant_id } })
  const me = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(session.token) })
  t.equal(me.json().user.tenant_id, admin.user.tenant_id, 'the session works, in the inviting tenant')

  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'ada.lovelace@example.com', password: 'my own secret passphrase' } })
  t.equal(login.statusCode, 200, 'the new password logs in')

  const [row] = await orm.em.getConnection().execute('SELECT status, accepted_user_id, accepted_at FROM invitations WHERE id = ?', [invitation.id])
  t.match(row, { status: 'accepted', accepted_user_id: session.user.id })
  t.ok(row?.accepted_at)
  t.equal((await accept(app, token)).json().error.code, 'INVITATION_USED', 'the link works once')
})

t.test('both invite paths, validation, duplicates and instances', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const other = await signup(app)

  const viaAlias = await invite(app, admin.token, inviteBody({ email: 'alias@example.com' }), '/api/users/invitation')
  t.equal(viaAlias.statusCode, 201, 'POST /api/users/invitation is the same handler')

  const again = await invite(app, admin.token, inviteBody({ email: 'ALIAS@example.com ' }))
  t.equal(again.statusCode, 400, 'the address must be an e-mail (schema)')
  const duplicate = await invite(app, admin.token, inviteBody({ email: 'ALIAS@example.com' }))
  t.equal(duplicate.statusCode, 409)
  t.equal(duplicate.json().error.code, 'INVITATION_PENDING')
  t.equal((await invite(app, other.token, inviteBody({ email: 'alias@example.com' }))).statusCode, 201, 'another company may invite the same address')

  const taken = await invite(app, admin.token, inviteBody({ email: other.email.toUpperCase() }))
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error.code, 'EMAIL_TAKEN', 'e-mails are unique across tenants, without case')

  for (const body of [
    inviteBody({ role: 'owner' }),
    inviteBody({ name: '   ' }),
    inviteBody({ email: 'not-an-email' }),
    inviteBody({ extra: true }),
    inviteBody({ instance_id: 'nope' }),
    inviteBody({ instance_id: '00000000-0000-4000-8000-000000000000' }),
    inviteBody({ instance_id: 1.5 }),
    inviteBody({ instance_id: 0 }),
    inviteBody({ instance_id: -1 })
  ]) {
    const response = await invite(app, admin.token, body)
    t.equal(response.statusCode, 400, JSON.stringify(body))
    t.equal(response.json().error.code, 'VALIDATION_FAILED')
  }

  const instance = await recordInstance(app, other.user.tenant_id, { name: 'Prod' })
  const foreign = await invite(app, admin.token, inviteBody({ instance_id: instance }))
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND', 'another company\'s instance')
  const unknown = await invite(app, admin.token, inviteBody({ instance_id: instance + 1_000_000 }))
  t.same(unknown.json().error, foreign.json().error, 'indistinguishable from an unknown id')
  const own = await invite(app, other.token, inviteBody({ instance_id: instance }))
  t.equal(own.statusCode, 201)
  t.equal(own.json().invitation.instance_id, instance, 'the integer id')

  const [count] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM invitations WHERE tenant_id = ?', [admin.user.tenant_id])
  t.equal(count?.n, 1, 'refused invitations left nothing behind')
})
