import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { invite, inviteAndReadToken, inviteBody } from '../../../support/invitations-flow.ts'

t.test('another company\'s invitation id: 404 on resend and cancel, and nothing changes', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const alice = await signup(app)
  const bob = await signup(app)
  const { invitation, token } = await inviteAndReadToken(app, smtp, bob.token)
  const snapshot = async () => (await orm.em.getConnection().execute('SELECT * FROM invitations WHERE id = ?', [invitation.id]))[0]
  const before = await snapshot()

  for (const action of ['resend', 'cancel']) {
    const foreign = await app.inject({ method: 'POST', url: `/api/users/invitation/${invitation.id}/${action}`, headers: bearer(alice.token) })
    t.equal(foreign.statusCode, 404, action)
    t.equal(foreign.json().error.code, 'INVITATION_NOT_FOUND')
    const unknown = await app.inject({ method: 'POST', url: `/api/users/invitation/00000000-0000-4000-8000-000000000000/${action}`, headers: bearer(alice.token) })
    t.same(foreign.json().error, unknown.json().error, 'indistinguishable from an unknown id')
  }
  t.same(await snapshot(), before, 'the invitation is untouched')
  t.equal(smtp.received.length, 1, 'no e-mail sent for it')
  const list = await app.inject({ method: 'GET', url: '/api/users/invitations', headers: bearer(alice.token) })
  t.same(list.json().invitations, [], 'alice does not see bob\'s invitations')
  t.equal((await app.inject({ method: 'GET', url: `/api/users/invitation/${token}` })).statusCode, 200, 'the link still works')
  const [activity] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM activities WHERE tenant_id = ?', [alice.user.tenant_id])
  t.equal(activity?.n, 0, 'nothing recorded in alice\'s feed')
})

t.test('a user-role member gets 403 on every admin route; an admin member may invite', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const owner = await signup(app)
  const { invitation } = await inviteAndReadToken(app, smtp, owner.token)
  const member = await addMember(app, owner.user.tenant_id, { role: 'user' })

  const attempts = [
    { method: 'POST' as const, url: '/api/users/invite', payload: inviteBody() },
    { method: 'POST' as const, url: '/api/users/invitation', payload: inviteBody() },
    { method: 'GET' as const, url: '/api/users/invitations' },
    { method: 'POST' as const, url: `/api/users/invitation/${invitation.id}/resend` },
    { method: 'POST' as const, url: `/api/users/invitation/${invitation.id}/cancel` }
  ]
  for (const attempt of attempts) {
    const response = await app.inject({ ...attempt, headers: bearer(member.token) })
    t.equal(response.statusCode, 403, `${attempt.method} ${attempt.url}`)
    t.equal(response.json().error.code, 'FORBIDDEN')
    t.equal((await app.inject({ ...attempt })).statusCode, 401, 'and 401 without a token')
  }
  const [rows] = await orm.em.getConnection().execute("SELECT count(*)::int AS n, max(send_count) AS sends, bool_and(status = 'pending') AS pending FROM invitations")
  t.match(rows, { n: 1, sends: 1, pending: true }, 'nothing was created, resent or cancelled')

  const admin = await addMember(app, owner.user.tenant_id, { role: 'admin' })
  t.equal((await invite(app, admin.token)).statusCode, 201)
})

t.test('every change writes an activity record in the same tenant', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const first = await inviteAndReadToken(app, smtp, admin.token, inviteBody({ name: 'Grace Hopper' }))
  await app.inject({ method: 'POST', url: `/api/users/invitation/${first.invitation.id}/resend`, headers: bearer(admin.token) })
  const token = (await smtp.nextMail({ to: first.invitation.email })).text.match(/token=([\w-]{43})/)?.[1] ?? ''
  const accepted = await app.inject({ method: 'POST', url: '/api/users/invitation/accept', payload: { token, password: 'grace password 1906' } })
  const second = await inviteAndReadToken(app, smtp, admin.token)
  await app.inject({ method: 'POST', url: `/api/users/invitation/${second.invitation.id}/cancel`, headers: bearer(admin.token) })

  const rows = await orm.em.getConnection().execute(
    'SELECT type, actor_kind, actor_id, target_type, target_id, title FROM activities WHERE tenant_id = ? ORDER BY id', [admin.user.tenant_id])
  const newUserId = accepted.json().user.id
  t.match(rows, [
    { type: 'invitation.created', actor_id: admin.user.id, target_type: 'invitation', target_id: first.invitation.id, title: new RegExp(`invited ${first.invitation.email}`) },
    { type: 'invitation.resent', actor_id: admin.user.id, target_id: first.invitation.id },
    { type: 'invitation.accepted', actor_kind: 'user', actor_id: newUserId, target_type: 'user', target_id: newUserId, title: /Grace Hopper/ },
    { type: 'invitation.created', target_id: second.invitation.id },
    { type: 'invitation.cancelled', actor_id: admin.user.id, target_id: second.invitation.id }
  ])
  t.equal(rows.length, 5)
})
