import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { TEST_JWT_SECRET, build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { freePort } from '../../../support/process.ts'
import { parseMessage, startSmtpServer } from '../../../support/mail-smtp.ts'
import { accept, invite, preview, tokenFromText, waitFor } from '../../../support/invitations-flow.ts'
import { createMailSealer } from '../../../../plugins/app/mail/mail-seal.ts'

interface OutboxRow { id: string, status: string, attempts: number, last_error: string | null, sealed_body: string | null, sent_at: Date | null, next_attempt_at: Date, json: string }
const OUTBOX = 'SELECT m.*, row_to_json(m)::text AS json FROM mail_outbox m ORDER BY created_at'

t.test('SMTP rejecting: the invitation is still created, delivery is retried, and the link never sits in clear', async (t) => {
  const smtp = await startSmtpServer(t)
  smtp.setMode('reject')
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)

  const created = await invite(app, admin.token)
  t.equal(created.statusCode, 201, 'a mail failure never fails the invitation')
  const failed = await waitFor(async () => {
    const [row] = await sql.execute<OutboxRow[]>(OUTBOX)
    return row !== undefined && row.last_error !== null ? row : undefined
  }, 10_000, 'the first attempt')
  t.match(failed, { status: 'pending', attempts: 1, last_error: /451|temporarily/i })
  const retryIn = new Date(failed.next_attempt_at).getTime() - Date.now()
  t.ok(retryIn > 20_000 && retryIn <= 30_000, `next attempt after the 30 s base backoff (${retryIn} ms)`)

  // The only way to the token is to open the sealed body with the key derived from JWT_SECRET.
  const opened = createMailSealer(TEST_JWT_SECRET).open(failed.sealed_body ?? '', failed.id)
  const token = tokenFromText(opened.text)
  t.notOk(failed.json.includes(token), 'the token is in no outbox column')
  const [invitation] = await sql.execute('SELECT row_to_json(i)::text AS json FROM invitations i')
  t.notOk(String(invitation?.json).includes(token), 'nor in the invitation row (only its SHA-256)')

  smtp.setMode('accept')
  await sql.execute('UPDATE mail_outbox SET next_attempt_at = now()') // the backoff has passed
  await app.mail.dispatchNow()
  const mail = await smtp.nextMail()
  t.equal(tokenFromText(mail.text), token)
  const [sent] = await sql.execute<OutboxRow[]>(OUTBOX)
  t.match(sent, { status: 'sent', attempts: 2, last_error: null, sealed_body: null })
  t.ok(sent?.sent_at)
  t.equal((await accept(app, token)).statusCode, 200, 'the delivered link works')
})

t.test('SMTP server down: the invitation is created and the error is recorded', async (t) => {
  const { app, orm } = await build(t, { env: { SMTP_URL: `smtp://127.0.0.1:${await freePort()}` } })
  const admin = await signup(app)
  t.equal((await invite(app, admin.token)).statusCode, 201)
  const [row] = await waitFor(async () => {
    const rows = await orm.em.getConnection().execute<OutboxRow[]>(OUTBOX)
    return rows[0]?.last_error != null ? rows : undefined
  }, 20_000, 'the first attempt')
  t.match(row, { status: 'pending', attempts: 1, last_error: /ECONNREFUSED|connect/i })
  t.ok(row?.sealed_body, 'kept for the next attempt')
})

t.test('no SMTP_URL: the e-mail is written to DATA_DIR/mail as an .eml file', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'invitations-mail-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const { app, orm } = await build(t, { env: { DATA_DIR: dataDir } })
  t.equal(app.mail.transport, 'file')
  const admin = await signup(app, { company: 'File Based Ltd' })
  const created = await invite(app, admin.token, { email: 'filed@example.com', name: 'Filed', role: 'user' })
  t.equal(created.statusCode, 201)

  const files = await waitFor(async () => {
    const names = await readdir(join(dataDir, 'mail')).catch(() => [])
    return names.length > 0 ? names : undefined
  })
  t.equal(files.length, 1)
  t.match(files[0], /\.eml$/)
  const message = parseMessage(await readFile(join(dataDir, 'mail', files[0] ?? ''), 'utf8'))
  t.equal(message.subject, 'You\'re invited to join File Based Ltd on ERP Portal')
  const token = tokenFromText(message.text)
  t.equal((await preview(app, token)).json().invitation.email, 'filed@example.com', 'the link in the file works')
  const row = await waitFor(async () => {
    const [candidate] = await orm.em.getConnection().execute<OutboxRow[]>(OUTBOX)
    return candidate?.status === 'sent' ? candidate : undefined
  }, 5000, 'the message marked sent')
  t.equal(row.sealed_body, null, 'body erased once written')
})

t.test('resend and cancel drop an unsent e-mail whose link is dead', async (t) => {
  const smtp = await startSmtpServer(t)
  smtp.setMode('reject')
  const { app, orm } = await build(t, { env: { SMTP_URL: smtp.url } })
  const sql = orm.em.getConnection()
  const admin = await signup(app)
  const { invitation } = (await invite(app, admin.token)).json()
  const attempted = async (count: number) => waitFor(async () => {
    const rows = await sql.execute<OutboxRow[]>(OUTBOX)
    return rows.length === count && rows.every((r) => r.attempts >= 1 && r.last_error !== null) ? rows : undefined
  }, 10_000, 'delivery attempts')
  const [first] = await attempted(1)

  t.equal((await app.inject({ method: 'POST', url: `/api/users/invitation/${invitation.id}/resend`, headers: { authorization: `Bearer ${admin.token}` } })).statusCode, 200)
  const [second] = await attempted(1)
  t.not(second?.id, first?.id, 'the old message is gone, only the new link is queued')

  t.equal((await app.inject({ method: 'POST', url: `/api/users/invitation/${invitation.id}/cancel`, headers: { authorization: `Bearer ${admin.token}` } })).statusCode, 200)
  t.same(await sql.execute(OUTBOX), [], 'nothing left to send for a cancelled invitation')
})
