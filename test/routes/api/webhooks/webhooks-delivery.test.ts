import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { startReceiver, until } from '../../../support/webhook-receiver.ts'
import { statementsDuring } from '../../../support/statements.ts'

t.setTimeout(120_000)

async function ticketRepliedBySupport (app: Awaited<ReturnType<typeof build>>['app'], token: string): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/api/tickets/create', headers: bearer(token), payload: { subject: 'Printer', description: 'It does not print' } })
  t.equal(created.statusCode, 201, created.body)
  const ticketId = created.json().ticket.id as string
  await app.supportDesk.reply(app.orm.em.fork(), ticketId, 'Sam from support', 'Try turning it off and on')
  return ticketId
}

t.test('a signed event reaches a real receiver, which fails twice then accepts; the log shows the attempts', async (t) => {
  const receiver = await startReceiver(t, { answer: (n) => n <= 2 ? 503 : 200 })
  const { app } = await build(t, { env: receiver.env })
  const admin = await signup(app)
  const created = await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['ticket.support_replied'] } })
  t.equal(created.statusCode, 201, created.body)
  const { webhook, secret } = created.json()
  t.match(secret, /^whsec_[\w-]{43}$/)
  receiver.secrets.push(secret)
  const [stored] = await app.orm.em.fork().execute<Array<{ sealed_secret: string }>>('SELECT sealed_secret FROM webhook_endpoints WHERE id = ?', [webhook.id])
  t.notOk(stored?.sealed_secret.includes(secret.slice(6)), 'the secret is not stored in plain text')

  const ticketId = await ticketRepliedBySupport(app, admin.token)
  await until(() => receiver.received.some((r) => r.answered === 200), 30_000, 'an accepted delivery')
  const attempts = receiver.received
  t.equal(attempts.length, 3, 'two failed attempts, then the accepted one')
  t.same(new Set(attempts.map((a) => a.json.id)).size, 1, 'every attempt carries the same event id')
  t.ok(attempts.every((a) => a.verifiedWith.length === 1), 'every attempt is signed with the secret')
  t.ok(attempts.every((a) => a.body === attempts[0]!.body), 'the same body on every attempt')
  const event = attempts[0]!.json
  t.match(event, { type: 'ticket.support_replied', tenant: admin.user.tenant_id, data: { id: ticketId, subject: 'Printer' } })
  t.equal(attempts[0]!.headers['webhook-id'], event.id)
  t.match(String(attempts[0]!.headers['webhook-signature']), /^t=\d+,v1=[0-9a-f]{64}$/)
  t.ok(attempts[1]!.at - attempts[0]!.at >= 900, 'the retry waited for the backoff')

  await until(async () => {
    const log = await app.inject({ method: 'GET', url: `/api/webhooks/${webhook.id}/deliveries`, headers: bearer(admin.token) })
    return log.json().deliveries[0]?.status === 'delivered'
  }, 10_000, 'the delivery settled')
  const log = (await app.inject({ method: 'GET', url: `/api/webhooks/${webhook.id}/deliveries`, headers: bearer(admin.token) })).json()
  t.match(log, { success: true, pagination: { page: 1, total: 1 }, deliveries: [{ event_id: event.id, event_type: 'ticket.support_replied', status: 'delivered', attempts: 3, response_status: 200 }] })
  t.type(log.deliveries[0].duration_ms, 'number')

  const again = await app.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/deliveries/${log.deliveries[0].id}/redeliver`, headers: bearer(admin.token) })
  t.equal(again.statusCode, 202, again.body)
  await until(() => receiver.received.length === 4, 10_000, 'the redelivery')
  t.equal(receiver.received[3]!.json.id, event.id, 'a redelivery carries the same event id')
})

t.test('rotation: both signatures during the grace period; a ping reaches the endpoint whatever it subscribed to', async (t) => {
  const receiver = await startReceiver(t)
  const { app } = await build(t, { env: receiver.env })
  const admin = await signup(app)
  const { webhook, secret } = (await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['instance.running'] } })).json()
  const rotated = await app.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/rotate-secret`, headers: bearer(admin.token) })
  t.equal(rotated.statusCode, 200, rotated.body)
  const next = rotated.json().secret as string
  t.not(next, secret)
  t.ok(rotated.json().webhook.previous_secret_expires_at, 'the previous secret has an end')
  receiver.secrets.push(next, secret)
  const ping = await app.inject({ method: 'POST', url: `/api/webhooks/${webhook.id}/test`, headers: bearer(admin.token) })
  t.equal(ping.statusCode, 202, ping.body)
  await until(() => receiver.received.length === 1, 10_000, 'the ping')
  const [got] = receiver.received
  t.match(got!.json, { type: 'ping', data: { webhook_id: webhook.id } })
  t.match(String(got!.headers['webhook-signature']), /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/, 'two v1 signatures')
  t.same(got!.verifiedWith, [next, secret], 'each secret verifies it')
})

t.test('an event is written with its change, and not at all when the change rolls back', async (t) => {
  // No fan-out pass during the test: it would drop the event, which no endpoint wants.
  const { app } = await build(t, { env: { WEBHOOK_FANOUT_MS: 60_000 } })
  const admin = await signup(app)
  const em = app.orm.em.fork()
  const actor = { kind: 'system' as const, tenantId: admin.user.tenant_id, job: 'test' }
  const count = async () => Number((await em.execute<Array<{ n: string }>>('SELECT count(*) AS n FROM webhook_events WHERE type = ?', ['instance.running']))[0]?.n)
  await t.rejects(em.fork().transactional(async (tx) => {
    app.activity.record(tx, actor, { type: 'instance.running', title: 'x', targetType: 'instance', targetId: '1' })
    await tx.flush()
    throw new Error('the change failed')
  }), /the change failed/)
  t.equal(await count(), 0, 'rolled back: no event')
  await em.fork().transactional(async (tx) => {
    app.activity.record(tx, actor, { type: 'instance.running', title: 'x', targetType: 'instance', targetId: '1' })
  })
  t.equal(await count(), 1, 'committed: one event')
})

t.test('a pass that finds no new event sends one statement and opens no transaction; one that finds an event hands it on', async (t) => {
  // No job workers: nothing but the pass itself talks to the database while its statements are counted.
  const { app } = await build(t, { env: { WEBHOOK_FANOUT_MS: 60_000, JOB_WORKERS: false } })
  const admin = await signup(app)
  await app.webhooks.fanOutNow() // what signing up recorded
  let handed = -1
  const sent = await statementsDuring(app, async () => { handed = await app.webhooks.fanOutNow() }, { workers: true })
  t.equal(handed, 0)
  t.equal(sent.length, 1, `one statement: ${sent.join(' | ')}`)
  t.notOk(sent.some((text) => /^\s*begin/i.test(text)), 'no transaction')

  const em = app.orm.em.fork()
  await em.transactional(async (tx) => {
    app.activity.record(tx, { kind: 'system', tenantId: admin.user.tenant_id, job: 'test' }, { type: 'instance.running', title: 'x', targetType: 'instance', targetId: '1' })
  })
  t.equal(await app.webhooks.fanOutNow(), 1, 'a new event is taken (and dropped: no endpoint wants it)')
  t.equal(await app.webhooks.fanOutNow(), 0)
})

t.test('two replicas on one database deliver each event once', async (t) => {
  const receiver = await startReceiver(t)
  const first = await build(t, { env: receiver.env })
  const second = await build(t, { env: receiver.env, databaseUrl: first.databaseUrl })
  const admin = await signup(first.app)
  const created = await first.app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['ticket.support_replied'] } })
  t.equal(created.statusCode, 201)
  const replies = 20
  const ticketId = await ticketRepliedBySupport(first.app, admin.token)
  for (let i = 1; i < replies; i++) await (i % 2 === 0 ? first : second).app.supportDesk.reply(first.app.orm.em.fork(), ticketId, 'Sam', `Reply ${i}`)
  await until(() => receiver.received.length >= replies, 30_000, 'every event')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const ids = receiver.received.map((r) => r.json.id)
  t.equal(ids.length, replies, 'one request per event')
  t.equal(new Set(ids).size, replies, 'no event twice')
})
