import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { agentRows, connectAgent, forgot, login, resetPassword, resetTokenFromText } from '../../../support/password-flow.ts'

const NEW_PASSWORD = 'a fresh new passphrase 9'

t.test('forgot: the same 202 for an account and for no account; only the account gets a link, which works once', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, PRODUCT_NAME: 'Acme Cloud' } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)

  const known = await forgot(app, admin.email.toUpperCase())
  const unknown = await forgot(app, 'nobody-here@example.com')
  t.equal(known.statusCode, 202)
  t.equal(unknown.statusCode, 202)
  t.same(unknown.json(), known.json(), 'the same body, word for word')
  const jobs = await sql.execute("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'password-reset-requests'")
  t.equal(jobs[0]?.n, 2, 'the same work both ways: one queued job each')

  const mail = await smtp.nextMail({ to: admin.email })
  t.equal(mail.subject, 'Reset your Acme Cloud password')
  t.match(mail.text, /http:\/\/portal\.test\/password\/reset\?token=/, 'the link opens on BASE_URL (no PORTAL_APP_URL)')
  const token = resetTokenFromText(mail.text)
  const [row] = await sql.execute('SELECT row_to_json(r)::text AS json, token_hash FROM password_resets r')
  t.notOk(String(row?.json).includes(token), 'the token is not stored, only its SHA-256')
  t.match(row?.token_hash, /^[0-9a-f]{64}$/)
  await waitFor(async () => (await sql.execute("SELECT 1 FROM pgboss.job WHERE name = 'password-reset-requests' AND state = 'completed'")).length === 2 ? true : undefined)
  t.equal(smtp.received.filter((m) => m.to.includes('nobody-here@example.com')).length, 0, 'no mail for an address without an account')

  const weak = await resetPassword(app, token, 'short')
  t.equal(weak.statusCode, 400)
  const sameAsEmail = await resetPassword(app, token, admin.email)
  t.equal(sameAsEmail.json().error.code, 'WEAK_PASSWORD', 'the sign-up rules')
  const done = await resetPassword(app, token, NEW_PASSWORD)
  t.equal(done.statusCode, 200, 'a weak attempt did not use the link up')
  t.equal((await resetPassword(app, token, 'yet another passphrase 1')).json().error.code, 'PASSWORD_RESET_TOKEN_INVALID', 'single use')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 401, 'the old password fails')
  t.equal((await login(app, admin.email, NEW_PASSWORD)).statusCode, 200, 'the new one works')

  const activity = await sql.execute("SELECT type FROM activities WHERE type LIKE 'password.%' ORDER BY created_at")
  t.same(activity.map((a) => a.type), ['password.reset_requested', 'password.reset'])
})

t.test('reset ends every session and every agent grant of the person, and nobody else\'s', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const colleague = await addMember(app, admin.user.tenant_id)
  const other = await signup(app)
  const second = (await login(app, admin.email, admin.password)).json().token
  await connectAgent(app, admin.user.id, 'grant-admin')
  await connectAgent(app, colleague.user.id, 'grant-colleague')

  await forgot(app, admin.email)
  const token = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)
  const done = await resetPassword(app, token, NEW_PASSWORD)
  t.same(done.json(), { success: true, sessions_ended: 2, agents_disconnected: 1 })
  for (const session of [admin.token, second]) {
    t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(session) })).statusCode, 401, 'session ended')
  }
  t.equal(await agentRows(app, admin.user.id), 0, 'grant, its tokens and the auth server session are gone')
  t.equal(await agentRows(app, colleague.user.id), 3, 'a colleague\'s agent stays')
  for (const session of [colleague.token, other.token]) {
    t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(session) })).statusCode, 200, 'others stay signed in')
  }
})

t.test('an expired link, a replaced link, a link of another person: all PASSWORD_RESET_TOKEN_INVALID', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url, PASSWORD_RESET_TTL_MINUTES: '5' } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)

  await forgot(app, admin.email)
  const first = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)
  const [row] = await sql.execute('SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM password_resets')
  t.equal(row?.ttl, 300, 'PASSWORD_RESET_TTL_MINUTES')
  await forgot(app, admin.email, '10.30.0.2')
  const second = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)
  t.equal((await resetPassword(app, first, NEW_PASSWORD)).json().error.code, 'PASSWORD_RESET_TOKEN_INVALID', 'a newer link replaces the older')

  await sql.execute("UPDATE password_resets SET expires_at = now() - interval '1 second'")
  const expired = await resetPassword(app, second, NEW_PASSWORD)
  t.equal(expired.statusCode, 400)
  t.equal(expired.json().error.code, 'PASSWORD_RESET_TOKEN_INVALID', 'expired')
  t.equal((await resetPassword(app, 'A'.repeat(43), NEW_PASSWORD)).json().error.code, 'PASSWORD_RESET_TOKEN_INVALID', 'unknown')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'the password did not change')
})

t.test('concurrent uses of one link: exactly one succeeds', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  await forgot(app, admin.email)
  const token = resetTokenFromText((await smtp.nextMail({ to: admin.email })).text)
  const answers = await Promise.all([1, 2, 3, 4].map((i) => resetPassword(app, token, `concurrent passphrase ${i}`, `10.31.1.${i}`)))
  t.same(answers.map((a) => a.statusCode).sort(), [200, 400, 400, 400])
})

t.test('rate limits: forgot per address and per IP, reset per IP', async (t) => {
  const { app } = await build(t, { env: { PASSWORD_RESET_LIMIT_PER_IP: '3', PASSWORD_RESET_LIMIT_PER_ACCOUNT: '2' } })
  t.equal((await forgot(app, 'target@example.com', '10.40.0.1')).statusCode, 202)
  t.equal((await forgot(app, 'TARGET@example.com', '10.40.0.2')).statusCode, 202)
  const perAddress = await forgot(app, 'target@example.com', '10.40.0.3')
  t.equal(perAddress.statusCode, 429, 'per address, across IPs')
  t.equal(perAddress.json().error.code, 'RATE_LIMITED')
  t.equal((await forgot(app, 'bystander@example.com', '10.40.0.3')).statusCode, 202, 'another address is not affected')
  t.equal((await forgot(app, 'x1@example.com', '10.40.0.3')).statusCode, 202, 'the third request from this IP (a refused one counts)')
  t.equal((await forgot(app, 'x2@example.com', '10.40.0.3')).statusCode, 429, 'per IP')
  for (const i of [1, 2, 3]) t.equal((await resetPassword(app, `${'B'.repeat(42)}${i}`, NEW_PASSWORD, '10.41.0.1')).statusCode, 400)
  t.equal((await resetPassword(app, 'C'.repeat(43), NEW_PASSWORD, '10.41.0.1')).statusCode, 429, 'guessing links is limited per IP')
})
