import t from 'tap'
import { build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { startSmtpServer } from '../../support/mail-smtp.ts'
import { openPage, postForm } from '../../support/page-forms.ts'
import { login, resetTokenFromText } from '../../support/password-flow.ts'

const NEW_PASSWORD = 'page chosen passphrase 7'

t.test('the login page names the product and links to the forgot page; the forgot page sends the link', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, PRODUCT_NAME: 'Acme Cloud' } })
  const admin = await signup(app)
  const loginPage = await app.inject({ method: 'GET', url: '/login' })
  t.match(loginPage.body, /<p class="brand">Acme Cloud<\/p>/)
  t.match(loginPage.body, /<a href="http:\/\/portal\.test\/password\/forgot">Forgot password\?<\/a>/)

  const { page, csrf, cookie } = await openPage(app, '/password/forgot')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  t.match(cookie, /^password_csrf=/)
  t.match(String(page.headers['set-cookie']), /Path=\/password; HttpOnly; SameSite=Strict/)
  t.equal((await postForm(app, '/password/forgot', { csrf: 'forged', email: admin.email }, cookie)).statusCode, 403, 'CSRF')
  const sent = await postForm(app, '/password/forgot', { csrf, email: admin.email }, cookie)
  t.equal(sent.statusCode, 200)
  t.match(sent.body, /If this address has an account/)
  const nobody = await postForm(app, '/password/forgot', { csrf, email: 'nobody@example.com' }, cookie)
  t.equal(nobody.body.replace(/name="csrf" value="[^"]+"/, ''), sent.body.replace(/name="csrf" value="[^"]+"/, ''), 'the same page for no account')

  const token = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)
  const reset = await openPage(app, `/password/reset?token=${token}`)
  t.equal(reset.page.statusCode, 200)
  t.match(reset.page.body, new RegExp(`For ${admin.email.replace('.', '\\.')}`))
  t.equal((await openPage(app, `/password/reset?token=${token}`)).page.statusCode, 200, 'looking does not use the link')
  const mismatch = await postForm(app, '/password/reset', { csrf: reset.csrf, token, password: NEW_PASSWORD, password_confirm: 'other' }, reset.cookie)
  t.match(mismatch.body, /The two passwords differ/)
  const weak = await postForm(app, '/password/reset', { csrf: reset.csrf, token, password: 'short', password_confirm: 'short' }, reset.cookie)
  t.match(weak.body, /at least 10 characters/)
  const done = await postForm(app, '/password/reset', { csrf: reset.csrf, token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }, reset.cookie)
  t.equal(done.statusCode, 200)
  t.match(done.body, /Password changed/)
  t.equal((await login(app, admin.email, NEW_PASSWORD)).statusCode, 200)
  const used = await openPage(app, `/password/reset?token=${token}`)
  t.equal(used.page.statusCode, 400)
  t.match(used.page.body, /invalid, has expired or has already been used/)
  t.match(used.page.body, /Ask for a new link/)
})

t.test('with PORTAL_APP_URL, links open on the front end', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, PORTAL_APP_URL: 'https://app.example.com/' } })
  const admin = await signup(app)
  t.match((await app.inject({ method: 'GET', url: '/login' })).body, /href="https:\/\/app\.example\.com\/password\/forgot"/)
  await app.inject({ method: 'POST', url: '/api/password/forgot', payload: { email: admin.email } })
  t.match((await smtp.nextMail({ to: admin.email })).text, /https:\/\/app\.example\.com\/password\/reset\?token=[A-Za-z0-9_-]{43}/)
  const invited = await app.inject({ method: 'POST', url: '/api/users/invite', headers: { authorization: `Bearer ${admin.token}` }, payload: { email: 'front@example.com', name: 'Front', role: 'user' } })
  t.equal(invited.statusCode, 201)
  t.match((await smtp.nextMail({ to: 'front@example.com' })).text, /https:\/\/app\.example\.com\/invitation\/accept\?token=/)
})
