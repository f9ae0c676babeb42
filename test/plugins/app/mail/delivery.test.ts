import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MikroORM } from '@mikro-orm/postgresql'
import { createOrmConfig } from '../../../../mikro-orm.config.ts'
import { MAIL_QUEUE } from '../../../../plugins/app/mail/mail.queue.ts'
import { createMailSealer } from '../../../../plugins/app/mail/mail-seal.ts'
import { createMailService } from '../../../../plugins/app/mail/mail.service.ts'
import { build, TEST_JWT_SECRET } from '../../../support/build.ts'
import { createTestDatabase } from '../../../support/database.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { startSmtpServer } from '../../../support/mail-smtp.ts'

// The mail-delivery queue through the app: pg-boss jobs sent in the enqueuing transaction.

async function enqueue (app: FastifyInstance, count: number, { rollback = false } = {}): Promise<string[]> {
  const ids: string[] = []
  await app.orm.em.fork().transactional(async (tx) => {
    for (let i = 0; i < count; i++) {
      ids.push((await app.mail.enqueue(tx, { tenantId: null, kind: 'test', to: `to-${i}@example.com`, subject: `Message ${i}`, text: `Body ${i}`, html: `<p>${i}</p>` })).id)
    }
    if (rollback) throw new Error('the change that caused the mail failed')
  }).catch((error: Error) => { if (!rollback) throw error })
  if (!rollback) app.mail.kick()
  return ids
}

const jobStates = async (app: FastifyInstance, ids: string[]) =>
  app.sql<{ id: string, state: string, retry_count: number }>({ text: 'SELECT id, state, retry_count FROM pgboss.job WHERE name = $1 AND id = ANY($2::uuid[])', values: [MAIL_QUEUE.name, ids] })

t.test('a message enqueued in a rolled-back transaction is never sent: neither its row nor its job exists', async (t) => {
  const smtp = await startSmtpServer(t)
  const { app } = await build(t, { env: { SMTP_URL: smtp.url } })
  const ids = await enqueue(app, 2, { rollback: true })
  t.equal(ids.length, 2, 'both were enqueued inside the transaction')
  t.same(await app.sql({ text: 'SELECT id FROM mail_outbox', values: [] }), [])
  t.same(await jobStates(app, ids), [], 'the jobs went with the rollback')
  t.same(await app.mail.dispatchNow(), { sent: 0, retried: 0, failed: 0 })

  const [committed = ''] = await enqueue(app, 1)
  await smtp.nextMail({ timeoutMs: 10_000 })
  t.same(smtp.received.map((m) => m.to), [['to-0@example.com']], 'only the committed message went out')
  t.match(await waitFor(async () => (await jobStates(app, [committed])).find((j) => j.state === 'completed')), { id: committed })
})

t.test('a failing SMTP send is retried with growing delays and ends failed after MAIL_MAX_ATTEMPTS', async (t) => {
  const smtp = await startSmtpServer(t)
  smtp.setMode('reject')
  const { app } = await build(t, { env: { SMTP_URL: smtp.url, MAIL_RETRY_SECONDS: 1, MAIL_MAX_ATTEMPTS: 3 } })
  const [id = ''] = await enqueue(app, 1)

  const attempts: number[] = []
  const row = await waitFor(async () => {
    while (attempts.length < smtp.rejectedCount()) attempts.push(Date.now())
    const [current] = await app.sql<{ status: string, attempts: number, last_error: string | null, sealed_body: string | null }>({ text: 'SELECT * FROM mail_outbox WHERE id = $1', values: [id] })
    return current?.status === 'failed' ? current : undefined
  }, 30_000, 'the message to fail')
  t.match(row, { status: 'failed', attempts: 3, sealed_body: null, last_error: /451|temporarily/i })
  t.equal(smtp.rejectedCount(), 3, 'three attempts, no more')
  const [first = 0, second = 0, third = 0] = attempts
  // pg-boss backoff: the n-th retry waits base * 2^(n-1) to twice that.
  t.ok(second - first >= 900, `first retry after >= 1 s (${second - first} ms)`)
  t.ok(third - second >= 1900, `second retry after >= 2 s (${third - second} ms)`)
  t.ok(third - second > second - first, 'the delay grew')
  // The outbox row is written failed by the last attempt's handler; pg-boss settles the job just after.
  const settled = await waitFor(async () => (await jobStates(app, [id])).find((j) => j.state !== 'active' && j.state !== 'retry'), 10_000, 'the job to settle')
  t.match(settled, { id, state: 'completed', retry_count: 2 }, 'one job, retried twice, settled')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.equal(smtp.rejectedCount(), 3, 'nothing after giving up')
})

t.test('two app instances on one database deliver each message once', async (t) => {
  const smtp = await startSmtpServer(t)
  const first = await build(t, { env: { SMTP_URL: smtp.url, JOB_CONCURRENCY: 4 } })
  const second = await build(t, { databaseUrl: first.databaseUrl, env: { SMTP_URL: smtp.url, JOB_CONCURRENCY: 4 } })
  const ids = await enqueue(first.app, 30)
  second.app.mail.kick()
  await waitFor(async () => smtp.received.length >= 30 ? true : undefined, 30_000, '30 messages')
  await new Promise((resolve) => setTimeout(resolve, 1500)) // a duplicate would arrive meanwhile
  const recipients = smtp.received.map((m) => m.to.join(','))
  t.equal(recipients.length, 30)
  t.equal(new Set(recipients).size, 30, 'each message once')
  const [counts] = await first.app.sql<{ sent: number }>({ text: "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent FROM mail_outbox", values: [] })
  t.equal(counts?.sent, 30)
  t.equal((await jobStates(first.app, ids)).filter((j) => j.state === 'completed').length, 30)
})

t.test('a pending message without a job (written before delivery ran on pg-boss) gets one when a worker starts', async (t) => {
  const smtp = await startSmtpServer(t)
  const databaseUrl = await createTestDatabase(t)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl, poolMax: 2 }))
  t.teardown(() => orm.close())
  const legacy = createMailService({ sealer: createMailSealer(TEST_JWT_SECRET), sendJob: async () => {}, kick: () => {} })
  await orm.em.fork().transactional((tx) => legacy.enqueue(tx, { tenantId: null, kind: 'test', to: 'old@example.com', subject: 'Old', text: 'From before', html: '<p>old</p>' }))

  await build(t, { databaseUrl, env: { SMTP_URL: smtp.url } })
  t.same((await smtp.nextMail({ timeoutMs: 15_000 })).to, ['old@example.com'])
})
