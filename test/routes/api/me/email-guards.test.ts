import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { confirmEmailChange, confirmTokenFromText, requestEmailChange } from '../../../support/email-change-flow.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { forgot, RESET_LINK, resetPassword, resetTokenFromText } from '../../../support/password-flow.ts'

/** What keeps a change safe besides the password: single use under races, rate limits, and what ends a pending change. */

t.test('concurrent confirmations of one link: exactly one succeeds', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const target = `race-${admin.user.id.slice(0, 8)}@example.org`
  await requestEmailChange(app, admin.token, { new_email: target, password: admin.password })
  const token = confirmTokenFromText((await smtp.nextMail({ to: target })).text)
  const answers = await Promise.all([1, 2, 3, 4].map((i) => confirmEmailChange(app, token, `10.62.1.${i}`)))
  t.same(answers.map((a) => a.statusCode).sort(), [200, 400, 400, 400])
})

t.test('rate limits: requests per account, confirmations per IP', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_ACCOUNT: '2', PASSWORD_RESET_LIMIT_PER_IP: '3' } })
  const admin = await signup(app)
  const colleague = await signup(app)
  for (const ip of ['10.63.0.1', '10.63.0.2']) {
    t.equal((await requestEmailChange(app, admin.token, { new_email: 'guess@example.org', password: 'guessing wrong' }, ip)).statusCode, 403)
  }
  const limited = await requestEmailChange(app, admin.token, { new_email: 'guess@example.org', password: admin.password }, '10.63.0.3')
  t.equal(limited.statusCode, 429, 'per account, across IPs, even with the right password')
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.equal((await requestEmailChange(app, colleague.token, { new_email: 'guess@example.org', password: colleague.password })).statusCode, 202,
    'another account is not affected')
  for (const i of [1, 2, 3]) t.equal((await confirmEmailChange(app, `${'B'.repeat(42)}${i}`, '10.64.0.1')).statusCode, 400)
  t.equal((await confirmEmailChange(app, 'C'.repeat(43), '10.64.0.1')).statusCode, 429, 'guessing links is limited per IP')
})

t.test('a password change or reset drops the pending change: whoever knew the old password cannot finish it', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const [byChange, byReset] = ['intruder-a', 'intruder-b'].map((name) => `${name}-${admin.user.id.slice(0, 8)}@example.org`) as [string, string]

  await requestEmailChange(app, admin.token, { new_email: byChange, password: admin.password })
  const first = confirmTokenFromText((await smtp.nextMail({ to: byChange })).text)
  const changed = await app.inject({
    method: 'POST', url: '/api/me/password', headers: bearer(admin.token), payload: { current_password: admin.password, new_password: 'the owner took it back 1' }
  })
  t.equal(changed.statusCode, 200)
  t.equal((await confirmEmailChange(app, first)).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'after a password change')

  await requestEmailChange(app, admin.token, { new_email: byReset, password: 'the owner took it back 1' })
  const second = confirmTokenFromText((await smtp.nextMail({ to: byReset })).text)
  await forgot(app, admin.email)
  const resetMail = await waitFor(async () => smtp.received.find((m) => m.to.includes(admin.email) && RESET_LINK.test(m.text)), 10_000, 'the reset e-mail')
  const reset = resetTokenFromText(resetMail.text)
  t.equal((await resetPassword(app, reset, 'reset by the owner 22')).statusCode, 200)
  t.equal((await confirmEmailChange(app, second)).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID', 'after a password reset')
})

t.test('a deactivated account cannot finish a change', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const target = `late-${admin.user.id.slice(0, 8)}@example.org`
  await requestEmailChange(app, admin.token, { new_email: target, password: admin.password })
  const token = confirmTokenFromText((await smtp.nextMail({ to: target })).text)
  await orm.em.getConnection().execute('UPDATE users SET active = false WHERE id = ?', [admin.user.id])
  t.equal((await confirmEmailChange(app, token)).json().error.code, 'EMAIL_CHANGE_TOKEN_INVALID')
  const [user] = await orm.em.getConnection().execute('SELECT email FROM users WHERE id = ?', [admin.user.id])
  t.equal(user?.email, admin.email)
})
