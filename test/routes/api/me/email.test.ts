import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { confirmEmailChange, confirmTokenFromText, requestEmailChange } from '../../../support/email-change-flow.ts'
import { forgot, login, resetPassword, resetTokenFromText } from '../../../support/password-flow.ts'

t.test('the change end to end: link to the new address, notices to the old, the link works once, the login follows', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, PRODUCT_NAME: 'Acme Cloud' } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)
  const newEmail = `moved-${admin.user.id.slice(0, 8)}@example.org`

  const asked = await requestEmailChange(app, admin.token, { new_email: newEmail.toUpperCase(), password: admin.password })
  t.equal(asked.statusCode, 202)
  t.match(asked.json(), { success: true, new_email: newEmail, expires_in: 3600 }, 'lower-cased; EMAIL_CHANGE_TTL_MINUTES defaults to 60')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })).json().user.email, admin.email, 'nothing changed yet')

  const confirmation = await smtp.nextMail({ to: newEmail })
  t.equal(confirmation.subject, 'Confirm your new Acme Cloud e-mail address')
  t.match(confirmation.text, /http:\/\/portal\.test\/email\/confirm\?token=/, 'the link opens on BASE_URL')
  const token = confirmTokenFromText(confirmation.text)
  const [row] = await sql.execute('SELECT row_to_json(c)::text AS json, token_hash FROM email_changes c')
  t.notOk(String(row?.json).includes(token), 'the token is not stored, only its SHA-256')
  t.match(row?.token_hash, /^[0-9a-f]{64}$/)
  const notice = await smtp.nextMail({ to: admin.email })
  t.equal(notice.subject, 'A change of your Acme Cloud e-mail address was requested')
  t.match(notice.text, newEmail, 'the old address is told which new address')
  t.match(notice.text, /http:\/\/portal\.test\/password\/forgot/, 'and how to reset the password if it was not them')

  await forgot(app, admin.email)
  const resetToken = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)

  const done = await confirmEmailChange(app, token)
  t.same(done.json(), { success: true, email: newEmail })
  const changed = await smtp.nextMail({ to: admin.email })
  t.equal(changed.subject, 'Your Acme Cloud e-mail address was changed', 'the old address is told the change happened')
  t.match(changed.text, newEmail)
  const again = await confirmEmailChange(app, token)
  t.equal(again.statusCode, 400)
  t.equal(again.json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'single use')

  t.equal((await login(app, admin.email, admin.password)).statusCode, 401, 'the old address no longer signs in')
  t.equal((await login(app, newEmail, admin.password)).statusCode, 200, 'the new one does, with the same password')
  const me = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })
  t.equal(me.statusCode, 200, 'the session stays')
  t.equal(me.json().user.email, newEmail)
  t.equal((await resetPassword(app, resetToken, 'a fresh new passphrase 9')).json().error.code, 'PASSWORD_RESET_TOKEN_INVALID',
    'a reset link mailed to the old address stopped working')

  const activity = await sql.execute("SELECT type FROM activities WHERE type LIKE 'account.%' ORDER BY id")
  t.same(activity.map((a) => a.type), ['account.email_change_requested', 'account.email_changed'])
})

t.test('refusals change nothing and send nothing: wrong password, taken address, same address, not an address, no session', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const other = await signup(app)

  const wrong = await requestEmailChange(app, admin.token, { new_email: 'free@example.org', password: 'not the password' })
  t.equal(wrong.statusCode, 403)
  t.equal(wrong.json().error.code, 'PASSWORD_INCORRECT')
  const taken = await requestEmailChange(app, admin.token, { new_email: other.email.toUpperCase(), password: admin.password })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error.code, 'EMAIL_TAKEN', 'an account of another company has it (compared without case)')
  const same = await requestEmailChange(app, admin.token, { new_email: admin.email.toUpperCase(), password: admin.password })
  t.equal(same.statusCode, 400)
  t.equal(same.json().error.code, 'EMAIL_UNCHANGED')
  t.equal((await requestEmailChange(app, admin.token, { new_email: 'not-an-address', password: admin.password })).json().error.code, 'VALIDATION_FAILED')
  const anonymous = await app.inject({ method: 'POST', url: '/api/me/email', payload: { new_email: 'free@example.org', password: admin.password } })
  t.equal(anonymous.statusCode, 401)

  const [pending] = await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM email_changes')
  t.equal(pending?.n, 0, 'no pending change')
  const [mails] = await orm.em.getConnection().execute("SELECT count(*)::int AS n FROM mail_outbox WHERE kind LIKE 'email-%'")
  t.equal(mails?.n, 0, 'no e-mail')
})

t.test('the address taken between request and confirmation: 409, nothing changes, the link is not used up', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const wanted = `wanted-${admin.user.id.slice(0, 8)}@example.org`
  t.equal((await requestEmailChange(app, admin.token, { new_email: wanted, password: admin.password })).statusCode, 202)
  const token = confirmTokenFromText((await smtp.nextMail({ to: wanted })).text)
  await signup(app, { email: wanted })

  const late = await confirmEmailChange(app, token)
  t.equal(late.statusCode, 409)
  t.equal(late.json().error.code, 'EMAIL_TAKEN')
  const [row] = await orm.em.getConnection().execute('SELECT consumed_at FROM email_changes')
  t.equal(row?.consumed_at, null, 'the transaction rolled back: the token is not consumed')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'the address did not change')
  const [recorded] = await orm.em.getConnection().execute("SELECT count(*)::int AS n FROM activities WHERE type = 'account.email_changed'")
  t.equal(recorded?.n, 0)
})

t.test('a newer request replaces the pending one; an expired link and an unknown one are refused', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, EMAIL_CHANGE_TTL_MINUTES: '5' } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)
  const [first, second] = ['first', 'second'].map((name) => `${name}-${admin.user.id.slice(0, 8)}@example.org`) as [string, string]

  t.equal((await requestEmailChange(app, admin.token, { new_email: first, password: admin.password })).json().expires_in, 300, 'EMAIL_CHANGE_TTL_MINUTES')
  const firstToken = confirmTokenFromText((await smtp.nextMail({ to: first })).text)
  const [row] = await sql.execute('SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM email_changes')
  t.equal(row?.ttl, 300)
  await requestEmailChange(app, admin.token, { new_email: second, password: admin.password })
  const secondToken = confirmTokenFromText((await smtp.nextMail({ to: second })).text)
  t.equal((await confirmEmailChange(app, firstToken)).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'the newer request replaced the older')

  await sql.execute("UPDATE email_changes SET expires_at = now() - interval '1 second'")
  t.equal((await confirmEmailChange(app, secondToken)).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'expired')
  t.equal((await confirmEmailChange(app, 'A'.repeat(43))).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'unknown')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'the address did not change')
})
