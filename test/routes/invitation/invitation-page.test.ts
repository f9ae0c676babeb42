import t from 'tap'
import { build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { startSmtpServer } from '../../support/mail-smtp.ts'
import { inviteAndReadToken } from '../../support/invitations-flow.ts'
import { openPage, postForm } from '../../support/page-forms.ts'
import { login } from '../../support/password-flow.ts'

t.test('the invitation link opens a page that creates the account; then the person signs in', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app, { company: 'Page Corp' })
  const { invitation, token } = await inviteAndReadToken(app, smtp, admin.token, { email: 'newcomer@example.com', name: 'New Comer', role: 'user' })

  const { page, csrf, cookie } = await openPage(app, `/invitation/accept?token=${token}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, /<h1>Join Page Corp<\/h1>/)
  t.match(page.body, /value="newcomer@example\.com" readonly/)
  t.match(page.body, /name="name"[^>]*value="New Comer"/)
  t.match(cookie, /^invitation_csrf=/)

  t.equal((await postForm(app, '/invitation/accept', { csrf, token, password: 'x', password_confirm: 'x' }, undefined)).statusCode, 403, 'no cookie, no accept')
  const weak = await postForm(app, '/invitation/accept', { csrf, token, name: 'Newt', password: 'short', password_confirm: 'short' }, cookie)
  t.match(weak.body, /at least 10 characters/)
  t.match(weak.body, /value="Newt"/, 'the typed name is kept')
  const done = await postForm(app, '/invitation/accept', { csrf, token, name: 'Newt Comer', password: 'newcomer passphrase 1', password_confirm: 'newcomer passphrase 1' }, cookie)
  t.equal(done.statusCode, 200)
  t.match(done.body, /Your account newcomer@example\.com is ready/)
  const signedIn = await login(app, 'newcomer@example.com', 'newcomer passphrase 1')
  t.equal(signedIn.statusCode, 200)
  t.equal(signedIn.json().user.name, 'Newt Comer', 'the chosen name')
  const [open] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM portal_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ? AND s.revoked_at IS NULL', ['newcomer@example.com'])
  t.equal(open?.n, 1, 'the page kept no session of its own open (only the login\'s)')

  const again = await openPage(app, `/invitation/accept?token=${token}`)
  t.equal(again.page.statusCode, 404)
  t.match(again.page.body, /already been accepted/)
  t.ok(invitation.id)
})
