import t from 'tap'
import { TEST_JWT_SECRET, build } from '../support/build.ts'
import { bearer, signup } from '../support/accounts.ts'
import { startSmtpServer } from '../support/mail-smtp.ts'
import { runCli } from '../support/process.ts'
import { agentRows, connectAgent, login, resetPassword, resetTokenFromText } from '../support/password-flow.ts'
import { enableTwoFactor } from '../support/two-factor.ts'

const accounts = (databaseUrl: string, args: string[]) =>
  runCli('ops/accounts.ts', args, { DATABASE_URL: databaseUrl, JWT_SECRET: TEST_JWT_SECRET, BASE_URL: 'http://portal.test', LOG_LEVEL: 'silent' })

t.test('reset-password --print: the old password, sessions and agents end at once; the printed link sets a new one', async (t) => {
  const { app, orm, databaseUrl } = await build(t)
  const admin = await signup(app)
  const bystander = await signup(app)
  await connectAgent(app, admin.user.id, 'grant-forced')

  const run = await accounts(databaseUrl, ['reset-password', admin.email.toUpperCase(), '--print', '--as', 'Olga Ops'])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /1 session\(s\) ended, 1 agent\(s\) disconnected/)
  const token = resetTokenFromText(run.stdout)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })).statusCode, 401, 'session ended')
  t.equal(await agentRows(app, admin.user.id), 0, 'agent disconnected')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 401, 'the old password no longer works')
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(bystander.token) })).statusCode, 200, 'nobody else is touched')
  const [record] = await orm.em.getConnection().execute("SELECT actor_id FROM activities WHERE type = 'password.reset_forced'")
  t.equal(record?.actor_id, 'operator:Olga Ops')
  t.equal((await orm.em.getConnection().execute('SELECT count(*)::int AS n FROM mail_outbox'))[0]?.n, 0, '--print sends nothing')

  t.equal((await resetPassword(app, token, 'operator given passphrase')).statusCode, 200)
  t.equal((await login(app, admin.email, 'operator given passphrase')).statusCode, 200)
})

t.test('reset-password without --print e-mails the link; an unknown address and bad usage are refused', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, databaseUrl } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const run = await accounts(databaseUrl, ['reset-password', admin.email])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /queued for e-mail/)
  t.notMatch(run.stdout, /token=/, 'the link is not printed')
  await app.mail.dispatchNow()
  const mail = await smtp.nextMail({ to: admin.email })
  t.match(mail.text, /An administrator of ERP Portal has reset the password/)
  t.equal((await resetPassword(app, resetTokenFromText(mail.text), 'mailed new passphrase 1')).statusCode, 200)

  const unknown = await accounts(databaseUrl, ['reset-password', 'nobody@example.com'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /USER_NOT_FOUND/)
  t.equal((await accounts(databaseUrl, ['reset-password'])).code, 2)
  t.equal((await accounts(databaseUrl, ['frobnicate', admin.email])).code, 2)
})

t.test('reset-two-factor: the factor, sessions and agents of the person end, a notice is e-mailed, the password alone signs in', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app, orm, databaseUrl } = await build(t, { env: { SMTP_URL: smtp.url } })
  const admin = await signup(app)
  const bystander = await signup(app)
  await enableTwoFactor(app, admin.token)
  await enableTwoFactor(app, bystander.token)
  await connectAgent(app, admin.user.id, 'grant-two-factor')

  const run = await accounts(databaseUrl, ['reset-two-factor', admin.email.toUpperCase(), '--as', 'Olga Ops'])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /1 session\(s\) ended, 1 agent\(s\) disconnected/)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(admin.token) })).statusCode, 401, 'session ended')
  t.equal(await agentRows(app, admin.user.id), 0, 'agent disconnected')
  t.equal((await login(app, admin.email, admin.password)).statusCode, 200, 'the password alone signs in')
  t.equal((await login(app, bystander.email, bystander.password)).json().error.code, 'TWO_FACTOR_REQUIRED', 'nobody else is touched')
  const [record] = await orm.em.getConnection().execute("SELECT actor_id, target_id FROM activities WHERE type = 'two_factor.reset'")
  t.same(record, { actor_id: 'operator:Olga Ops', target_id: admin.user.id })
  await app.mail.dispatchNow()
  const mail = await smtp.nextMail({ to: admin.email })
  t.match(mail.text, /Olga Ops, of the ERP Portal operations team, removed the second factor/)

  const again = await accounts(databaseUrl, ['reset-two-factor', admin.email])
  t.equal(again.code, 1)
  t.match(again.stderr, /TWO_FACTOR_NOT_ENABLED/)
  t.equal((await accounts(databaseUrl, ['reset-two-factor', 'nobody@example.com'])).code, 1)
  t.equal((await accounts(databaseUrl, ['reset-two-factor', admin.email, '--print'])).code, 2)
})
