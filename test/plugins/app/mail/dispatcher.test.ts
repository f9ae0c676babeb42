import t from 'tap'
import type { MikroORM } from '@mikro-orm/postgresql'
import { backoffMs, createMailDispatcher, type DispatcherTuning } from '../../../../plugins/app/mail/mail-dispatcher.ts'
import { createMailSealer, type MailSealer } from '../../../../plugins/app/mail/mail-seal.ts'
import { createMailService } from '../../../../plugins/app/mail/mail.service.ts'
import { createMailTransport, type MailTransport, type OutgoingMessage } from '../../../../plugins/app/mail/mail-transport.ts'
import type { Sql } from '../../../../lib/sql.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { outboxDatabase, recordingLogger } from '../../../support/mail-outbox-db.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'

const sealer = createMailSealer('dispatcher-test-secret-0123456789abcdef')
const FAST: Partial<DispatcherTuning> = { retryBaseMs: 40, retryCapMs: 1000, pollIntervalMs: 15, maxAttempts: 5 }

async function enqueue (orm: MikroORM, count = 1, with_ = sealer): Promise<string[]> {
  const em = orm.em.fork()
  const mail = createMailService({ sealer: with_, kick: () => {} })
  const ids = Array.from({ length: count }, (_, i) => mail.enqueue(em, {
    tenantId: null, kind: 'test', to: `to-${i}@example.com`, subject: `Message ${i}`, text: 'Link: http://x/?token=t0p-s3cret', html: '<p>hi</p>'
  }).id)
  await em.flush()
  return ids
}

interface Row { status: string, attempts: number, last_error: string | null, sealed_body: string | null, sent_at: Date | null, next_attempt_at: Date, locked_until: Date | null }
const row = async (sql: Sql, id: string) => (await sql<Row>({ text: 'SELECT * FROM mail_outbox WHERE id = $1', values: [id] }))[0] as Row

function fakeTransport (send: (message: OutgoingMessage) => Promise<void>): MailTransport {
  return { kind: 'smtp', send, close: () => {} }
}

t.test('backoff doubles from the base and stops at the cap', async (t) => {
  const tuning = { retryBaseMs: 30_000, retryCapMs: 3_600_000 }
  t.same([1, 2, 3, 4, 8, 20].map((attempts) => backoffMs(attempts, tuning)), [30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000])
})

t.test('a rejected message is retried with backoff until the server takes it, then its body is erased', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const smtp = await startSmtpServer(t)
  smtp.setMode('reject')
  const transport = createMailTransport({ smtpUrl: smtp.url, dataDir: '/nonexistent', from: 'test@portal.test', log: recordingLogger() })
  const log = recordingLogger()
  const dispatcher = createMailDispatcher({ sql, transport, sealer, log, tuning: FAST })
  t.teardown(() => dispatcher.stop())
  const [id = ''] = await enqueue(orm)
  dispatcher.start()
  dispatcher.kick()

  const afterFirst = await waitFor(async () => { const r = await row(sql, id); return r.attempts >= 1 && r.last_error !== null ? r : undefined })
  t.equal(afterFirst.status, 'pending')
  t.match(afterFirst.last_error, /451|temporarily/i)
  t.ok(afterFirst.sealed_body, 'the body is kept for the next attempt')
  await waitFor(async () => smtp.rejectedCount() >= 2 ? true : undefined, 5000, 'a second attempt')
  smtp.setMode('accept')

  const mail = await smtp.nextMail({ timeoutMs: 5000 })
  t.match(mail.text, 'token=t0p-s3cret')
  const sent = await waitFor(async () => { const r = await row(sql, id); return r.status === 'sent' ? r : undefined })
  t.ok(sent.attempts >= 3)
  t.ok(sent.sent_at)
  t.equal(sent.sealed_body, null, 'erased once sent')
  t.equal(sent.last_error, null)
  t.ok(log.entries.some((e) => e.level === 'warn' && e.context.mail_id === id), 'failures are logged as warnings')
  transport.close()
})

t.test('after the last attempt a message is failed for good: body erased, error logged, no secrets stored', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const log = recordingLogger()
  let calls = 0
  const transport = fakeTransport(async () => {
    calls++
    throw new Error('auth failed for smtp://mailer:hunter22@smtp.test, link token=t0p-s3cret')
  })
  const dispatcher = createMailDispatcher({ sql, transport, sealer, log, secrets: ['hunter22'], tuning: { ...FAST, maxAttempts: 3 } })
  t.teardown(() => dispatcher.stop())
  const [id = ''] = await enqueue(orm)
  dispatcher.start()
  dispatcher.kick()

  const failed = await waitFor(async () => { const r = await row(sql, id); return r.status === 'failed' ? r : undefined })
  t.equal(failed.attempts, 3)
  t.equal(calls, 3)
  t.equal(failed.sealed_body, null)
  t.equal(failed.last_error, 'auth failed for smtp://mailer:***@smtp.test, link token=***')
  t.equal(log.entries.filter((e) => e.level === 'error').length, 1)
  t.equal(log.entries.filter((e) => e.level === 'warn').length, 2)
  t.notMatch(JSON.stringify(log.entries), /hunter22|t0p-s3cret/)
})

t.test('a body that cannot be opened (JWT_SECRET changed) fails at once instead of retrying', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const [id = ''] = await enqueue(orm, 1, createMailSealer('the-old-secret-before-rotation-000000000'))
  let calls = 0
  const dispatcher = createMailDispatcher({ sql, transport: fakeTransport(async () => { calls++ }), sealer, log: recordingLogger(), tuning: FAST })
  t.same(await dispatcher.dispatchNow(), { sent: 0, retried: 0, failed: 1 })
  t.match(await row(sql, id), { status: 'failed', attempts: 1, sealed_body: null, last_error: /cannot be decrypted/ })
  t.equal(calls, 0)
})

t.test('replicas dispatching at once send every message exactly once', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const ids = await enqueue(orm, 40)
  const sent: string[] = []
  const replica = () => createMailDispatcher({
    sql,
    transport: fakeTransport(async (message) => { await new Promise((resolve) => setTimeout(resolve, 3)); sent.push(message.id) }),
    sealer,
    log: recordingLogger(),
    tuning: { ...FAST, batchSize: 3 }
  })
  const replicas = [replica(), replica(), replica(), replica()]
  const results = await Promise.all(replicas.map((r) => r.dispatchNow()))
  t.equal(results.reduce((sum, r) => sum + r.sent, 0), 40)
  t.ok(results.filter((r) => r.sent > 0).length > 1, 'the work was shared')
  t.same([...sent].sort(), [...ids].sort(), 'each message once')
  const [counts] = await sql<{ sent: number }>({ text: "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent FROM mail_outbox", values: [] })
  t.equal(counts?.sent, 40)
})

t.test('a lease protects a message being sent; an expired lease hands it to another replica', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const [busy = '', abandoned = ''] = await enqueue(orm, 2)
  await sql({ text: "UPDATE mail_outbox SET attempts = 1, locked_until = now() + interval '1 minute' WHERE id = $1", values: [busy] })
  await sql({ text: "UPDATE mail_outbox SET attempts = 1, locked_until = now() - interval '1 second' WHERE id = $1", values: [abandoned] })
  const sent: string[] = []
  const dispatcher = createMailDispatcher({ sql, transport: fakeTransport(async (m) => { sent.push(m.id) }), sealer, log: recordingLogger(), tuning: FAST })
  await dispatcher.dispatchNow()
  t.same(sent, [abandoned])
  t.match(await row(sql, abandoned), { status: 'sent', attempts: 2 })
  t.match(await row(sql, busy), { status: 'pending', attempts: 1 })
})

t.test('stop() waits for the message in flight, hands back the rest, and then nothing more is sent', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const ids = await enqueue(orm, 3)
  let release = () => {}
  const started: string[] = []
  const transport = fakeTransport(async (m) => { started.push(m.id); await new Promise<void>((resolve) => { release = resolve }) })
  const dispatcher = createMailDispatcher({ sql, transport, sealer, log: recordingLogger(), tuning: FAST })
  dispatcher.start()
  dispatcher.kick()
  await waitFor(async () => started.length === 1 ? true : undefined)
  let stopped = false
  const stopping = dispatcher.stop().then(() => { stopped = true })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(stopped, 'still waiting for the send in flight')
  release()
  await stopping
  const rows = await Promise.all(ids.map((id) => row(sql, id)))
  t.same(rows.map((r) => r.status).sort(), ['pending', 'pending', 'sent'])
  t.same(rows.filter((r) => r.status === 'pending').map((r) => [r.attempts, r.locked_until]), [[0, null], [0, null]], 'the rest is free for another replica at once')

  dispatcher.kick()
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(started.length, 1, 'a stopped dispatcher sends nothing')
})
