/**
 * Each e-mail's link followed in a real browser (Debian's Chromium), from the
 * message the SMTP sink received to the end of the journey, on the pages the
 * service serves itself when PORTAL_APP_URL is unset.
 */
import t from 'tap'
import { build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { startSmtpServer } from '../../support/mail-smtp.ts'
import { invite } from '../../support/invitations-flow.ts'
import { freePort } from '../../support/process.ts'
import { launchChromium, newPage } from '../../support/browser.ts'
import { login } from '../../support/password-flow.ts'
import { requestEmailChange } from '../../support/email-change-flow.ts'

const LINK = /(http:\/\/127\.0\.0\.1:\d+\/(?:invitation\/accept|password\/reset|email\/confirm)\?token=[A-Za-z0-9_-]{43})/

const linkIn = (text: string) => {
  const link = LINK.exec(text)?.[1]
  if (link === undefined) throw new Error(`no link in:\n${text}`)
  return link
}

const port = await freePort()
const origin = `http://127.0.0.1:${port}`
const smtp = await startSmtpServer(t)
const { app } = await build(t, { env: { SMTP_URL: smtp.url, BASE_URL: origin, PRODUCT_NAME: 'Acme Cloud' } })
await app.listen({ port, host: '127.0.0.1' })
const browser = await launchChromium(t)

t.test('invitation: the e-mail\'s link, the accept page, then the person signs in on the login page', async (t) => {
  const admin = await signup(app, { company: 'Browser Corp' })
  t.equal((await invite(app, admin.token, { email: 'browser-newcomer@example.com', name: 'Bea Browser', role: 'user' })).statusCode, 201)
  const mail = await smtp.nextMail({ to: 'browser-newcomer@example.com' })
  const { page, consoleErrors } = await newPage(t, browser)

  await page.goto(linkIn(mail.text))
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Join Browser Corp')
  t.equal(await page.locator('.brand').textContent(), 'Acme Cloud')
  t.equal(await page.getByLabel('Name').inputValue(), 'Bea Browser')
  await page.getByLabel('New password', { exact: true }).fill('bea chosen passphrase')
  await page.getByLabel('Repeat the new password').fill('bea chosen passphrase')
  await page.getByRole('button', { name: 'Accept' }).click()
  await page.getByRole('heading', { name: 'Welcome aboard' }).waitFor()

  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Email').fill('browser-newcomer@example.com')
  await page.getByLabel('Password').fill('bea chosen passphrase')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Signed in' }).waitFor()
  t.match(await page.locator('main').textContent(), /signed in as Bea Browser/)
  t.same(consoleErrors, [], 'no console errors (no CSP violation)')
})

t.test('password reset: "Forgot password?" on the login page, the e-mail\'s link, a new password; the old one fails, the new one works', async (t) => {
  const admin = await signup(app)
  const { page, consoleErrors } = await newPage(t, browser)

  await page.goto(`${origin}/login`)
  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await page.getByLabel('Email').fill(admin.email)
  await page.getByRole('button', { name: 'Send the link' }).click()
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor()

  const mail = await smtp.nextMail({ to: admin.email })
  t.equal(mail.subject, 'Reset your Acme Cloud password')
  await page.goto(linkIn(mail.text))
  await page.getByLabel('New password', { exact: true }).fill('short')
  await page.getByLabel('Repeat the new password').fill('short')
  await page.getByRole('button', { name: 'Set the new password' }).click()
  t.match(await page.getByRole('alert').textContent(), /at least 10 characters/, 'the rule, on the form')
  await page.getByLabel('New password', { exact: true }).fill('browser reset passphrase')
  await page.getByLabel('Repeat the new password').fill('browser reset passphrase')
  await page.getByRole('button', { name: 'Set the new password' }).click()
  await page.getByRole('heading', { name: 'Password changed' }).waitFor()

  t.equal((await login(app, admin.email, admin.password)).statusCode, 401, 'the old password fails')
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Email').fill(admin.email)
  await page.getByLabel('Password').fill('browser reset passphrase')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Signed in' }).waitFor()

  t.same(consoleErrors, [], 'no console errors (no CSP violation)')

  const again = await page.goto(linkIn(mail.text))
  t.equal(again?.status(), 400)
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This link cannot be used', 'the link worked once')
})

t.test('e-mail change: the link in the new mailbox, the Confirm button, then sign-in with the new address', async (t) => {
  const admin = await signup(app)
  const newEmail = `browser-moved-${admin.user.id.slice(0, 8)}@example.org`
  t.equal((await requestEmailChange(app, admin.token, { new_email: newEmail, password: admin.password })).statusCode, 202)
  const mail = await smtp.nextMail({ to: newEmail })
  t.equal(mail.subject, 'Confirm your new Acme Cloud e-mail address')
  const { page, consoleErrors } = await newPage(t, browser)

  await page.goto(linkIn(mail.text))
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Confirm your new e-mail address')
  t.equal(await page.locator('strong').textContent(), newEmail)
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'opening the link changed nothing')
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByRole('heading', { name: 'E-mail address changed' }).waitFor()

  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Email').fill(newEmail)
  await page.getByLabel('Password').fill(admin.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Signed in' }).waitFor()
  t.equal((await login(app, admin.email, admin.password)).statusCode, 401, 'the old address no longer signs in')
  t.same(consoleErrors, [], 'no console errors (no CSP violation)')

  const again = await page.goto(linkIn(mail.text))
  t.equal(again?.status(), 400)
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This link cannot be used', 'the link worked once')
})
