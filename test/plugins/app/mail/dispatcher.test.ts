import t from 'tap'
import type { MikroORM } from '@mikro-orm/postgresql'
import { backoffMs, createMailDispatcher, type DeliveryJob, type DispatcherTuning } from '../../../../plugins/app/mail/mail-dispatcher.job.ts'
import { createMailSealer } from '../../../../plugins/app/mail/mail-seal.ts'
import { createMailService } from '../../../../plugins/app/mail/mail.service.ts'
import type { MailTransport, OutgoingMessage } from '../../../../plugins/app/mail/mail-transport.ts'
import type { Sql } from '../../../../lib/sql.ts'
import { outboxDatabase, recordingLogger } from '../../../support/mail-outbox-db.ts'

// One delivery attempt at a time, as a pg-boss worker runs it (the queue itself: delivery.test.ts).

const sealer = createMailSealer('dispatcher-test-secret-0123456789abcdef')
const FAST: Partial<DispatcherTuning> = { retryBaseMs: 1000, retryCapMs: 8000, maxAttempts: 5 }

async function enqueue (orm: MikroORM, count = 1, with_ = sealer): Promise<string[]> {
  const mail = createMailService({ sealer: with_, sendJob: async () => {}, kick: () => {} })
  return orm.em.fork().transactional(async (tx) => {
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      ids.push((await mail.enqueue(tx, {
        tenantId: null, kind: 'test', to: `to-${i}@example.com`, subject: `Message ${i}`, text: 'Link: http://x/?token=t0p-s3cret', html: '<p>hi</p>'
      })).id)
    }
    return ids
  })
}

const job = (id: string, retryCount = 0, retryLimit = 4): DeliveryJob => ({ data: { id }, retryCount, retryLimit })

interface Row { status: string, attempts: number, last_error: string | null, sealed_body: string | null, sent_at: Date | null, next_attempt_at: Date, locked_until: Date | null }
const row = async (sql: Sql, id: string) => (await sql<Row>({ text: 'SELECT * FROM mail_outbox WHERE id = $1', values: [id] }))[0] as Row

function fakeTransport (send: (message: OutgoingMessage) => Promise<void>): MailTransport {
  return { kind: 'smtp', send, close: () => {} }
}

t.test('backoff doubles from the base and stops at the cap', async (t) => {
  const tuning = { retryBaseMs: 30_000, retryCapMs: 3_600_000 }
  t.same([1, 2, 3, 4, 8, 20].map((attempts) => backoffMs(attempts, tuning)), [30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000])
})

t.test('enqueue needs the transaction of the change that causes the message', async (t) => {
  const { orm } = await outboxDatabase(t)
  const mail = createMailService({ sealer, sendJob: async () => {}, kick: () => {} })
  await t.rejects(mail.enqueue(orm.em.fork(), { tenantId: null, kind: 'test', to: 'a@example.com', subject: 's', text: 't', html: 'h' }), /transaction/)
})

t.test('a failed attempt is recorded and thrown (pg-boss retries it); the last one fails the message for good without secrets', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const log = recordingLogger()
  const transport = fakeTransport(async () => { throw new Error('auth failed for smtp://mailer:hunter22@smtp.test, link token=t0p-s3cret') })
  const dispatcher = createMailDispatcher({ sql, transport, sealer, log, secrets: ['hunter22'], tuning: { ...FAST, maxAttempts: 2 } })
  const [id = ''] = await enqueue(orm)

  const before = Date.now()
  await t.rejects(dispatcher.deliver(job(id, 0, 1)), { message: 'auth failed for smtp://mailer:***@smtp.test, link token=***' })
  const retrying = await row(sql, id)
  t.match(retrying, { status: 'pending', attempts: 1, locked_until: null })
  t.ok(retrying.sealed_body, 'the body is kept for the next attempt')
  t.ok(new Date(retrying.next_attempt_at).getTime() >= before + 1000 - 50, 'the earliest next attempt is one base delay away')

  t.equal(await dispatcher.deliver(job(id, 1, 1)), 'failed', 'the last attempt ends the job instead of throwing')
  const failed = await row(sql, id)
  t.match(failed, { status: 'failed', attempts: 2, sealed_body: null, last_error: 'auth failed for smtp://mailer:***@smtp.test, link token=***' })
  t.equal(log.entries.filter((e) => e.level === 'error').length, 1)
  t.equal(log.entries.filter((e) => e.level === 'warn').length, 1)
  t.notMatch(JSON.stringify(log.entries), /hunter22|t0p-s3cret/)
  t.equal(await dispatcher.deliver(job(id, 2, 1)), 'gone', 'a stray retry of a failed message sends nothing')
})

t.test('a body that cannot be opened (JWT_SECRET changed) fails at once instead of retrying', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const [id = ''] = await enqueue(orm, 1, createMailSealer('the-old-secret-before-rotation-000000000'))
  let calls = 0
  const dispatcher = createMailDispatcher({ sql, transport: fakeTransport(async () => { calls++ }), sealer, log: recordingLogger(), tuning: FAST })
  t.equal(await dispatcher.deliver(job(id)), 'failed')
  t.match(await row(sql, id), { status: 'failed', attempts: 1, sealed_body: null, last_error: /cannot be decrypted/ })
  t.equal(calls, 0)
})

t.test('a lease protects a message being sent; an expired lease hands it to the next attempt', async (t) => {
  const { orm, sql } = await outboxDatabase(t)
  const [busy = '', abandoned = ''] = await enqueue(orm, 2)
  await sql({ text: "UPDATE mail_outbox SET attempts = 1, locked_until = now() + interval '1 minute' WHERE id = $1", values: [busy] })
  await sql({ text: "UPDATE mail_outbox SET attempts = 1, locked_until = now() - interval '1 second' WHERE id = $1", values: [abandoned] })
  const sent: string[] = []
  const dispatcher = createMailDispatcher({ sql, transport: fakeTransport(async (m) => { sent.push(m.id) }), sealer, log: recordingLogger(), tuning: FAST })
  await t.rejects(dispatcher.deliver(job(busy, 1)), /being sent by another worker/, 'retried later, not sent twice')
  t.equal(await dispatcher.deliver(job(abandoned, 1)), 'sent')
  t.same(sent, [abandoned])
  t.match(await row(sql, abandoned), { status: 'sent', attempts: 2, sealed_body: null, last_error: null })
  t.match(await row(sql, busy), { status: 'pending', attempts: 1 })
  t.equal(await dispatcher.deliver(job(abandoned, 2)), 'gone', 'a sent message is never sent again')
})
