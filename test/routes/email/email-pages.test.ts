import t from 'tap'
import { build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { startSmtpServer } from '../../support/mail-smtp.ts'
import { openPage, postForm } from '../../support/page-forms.ts'
import { confirmTokenFromText, requestEmailChange } from '../../support/email-change-flow.ts'
import { login } from '../../support/password-flow.ts'

t.test('the confirmation page: looking changes nothing, a forged post is refused, the Confirm button changes the address once', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, PRODUCT_NAME: 'Acme Cloud' } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)
  const newEmail = `paged-${admin.user.id.slice(0, 8)}@example.org`
  await requestEmailChange(app, admin.token, { new_email: newEmail, password: admin.password })
  const token = confirmTokenFromText((await smtp.nextMail({ to: newEmail })).text)

  const { page, csrf, cookie } = await openPage(app, `/email/confirm?token=${token}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, `<strong>${newEmail}</strong> instead of ${admin.email}`, 'shows both addresses')
  t.match(page.body, /<button type="submit">Confirm<\/button>/)
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.match(String(page.headers['set-cookie']), /^email_csrf=.*Path=\/email; HttpOnly; SameSite=Strict/)
  t.equal((await openPage(app, `/email/confirm?token=${token}`)).page.statusCode, 200, 'a second look (a mail scanner\'s prefetch) works too')
  const [pending] = await sql.execute('SELECT consumed_at FROM email_changes')
  t.equal(pending?.consumed_at, null, 'looking did not use the link')

  const forged = await postForm(app, '/email/confirm', { csrf: 'forged', token }, cookie)
  t.equal(forged.statusCode, 403, 'CSRF')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'a forged post changed nothing')

  const done = await postForm(app, '/email/confirm', { csrf, token }, cookie)
  t.equal(done.statusCode, 200)
  t.match(done.body, /E-mail address changed/)
  t.match(done.body, `Your e-mail address is now ${newEmail}`)
  t.match(done.body, /<a href="http:\/\/portal\.test\/login">Sign in<\/a>/)
  t.equal((await login(app, newEmail, admin.password)).statusCode, 200)

  const used = await openPage(app, `/email/confirm?token=${token}`)
  t.equal(used.page.statusCode, 400)
  t.match(used.page.body, /This link cannot be used/)
  t.match(used.page.body, /invalid, has expired or has already been used/)
  const twice = await postForm(app, '/email/confirm', { csrf, token }, cookie)
  t.equal(twice.statusCode, 400, 'posting again is refused on a page, not the JSON envelope')
  t.match(twice.headers['content-type'], /text\/html/)
})

t.test('with PORTAL_APP_URL, the confirmation link opens on the front end', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, PORTAL_APP_URL: 'https://app.example.com/' } })
  const admin = await signup(app)
  const newEmail = `front-${admin.user.id.slice(0, 8)}@example.org`
  t.equal((await requestEmailChange(app, admin.token, { new_email: newEmail, password: admin.password })).statusCode, 202)
  t.match((await smtp.nextMail({ to: newEmail })).text, /https:\/\/app\.example\.com\/email\/confirm\?token=[A-Za-z0-9_-]{43}/)
  t.match((await smtp.nextMail({ to: admin.email })).text, /https:\/\/app\.example\.com\/password\/forgot/)
})
