import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { startReceiver, until } from '../../../support/webhook-receiver.ts'

t.setTimeout(180_000)

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

/**
 * Figures, not assertions on time (printed as comments): the delay from a change's commit to the
 * receiver for changes that come one at a time, and the rate at which a backlog of events drains
 * to a local receiver. FIGURE_EVENTS sets the backlog's size.
 */
t.test('figures: delay from change to delivery, and delivery rate', async (t) => {
  const receiver = await startReceiver(t)
  const { app } = await build(t, { env: { ...receiver.env, WEBHOOK_FANOUT_MS: 100 } })
  const admin = await signup(app)
  await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['instance.running'] } })
  const actor = { kind: 'system' as const, tenantId: admin.user.tenant_id, job: 'figures' }
  const change = async (title: string) => {
    await app.orm.em.fork().transactional(async (tx) => {
      app.activity.record(tx, actor, { type: 'instance.running', title, targetType: 'instance', targetId: '0' })
    })
    return Date.now()
  }

  const single = 30
  const committedAt = new Map<string, number>()
  for (let i = 0; i < single; i++) {
    committedAt.set(`single ${i}`, await change(`single ${i}`))
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  await until(() => receiver.received.length >= single, 60_000, 'the single events')
  const delays = receiver.received.map((r) => r.at - (committedAt.get(String(r.json.data.title)) ?? NaN)).filter(Number.isFinite).sort((a, b) => a - b)
  t.equal(delays.length, single, 'each single event once')
  t.comment(`one change at a time (${single}, 300 ms apart): change to delivery p50 ${percentile(delays, 0.5)} ms, p99 ${percentile(delays, 0.99)} ms`)

  const backlog = Number(process.env.FIGURE_EVENTS ?? 200)
  const started = Date.now()
  for (let i = 0; i < backlog; i += 10) await Promise.all(Array.from({ length: Math.min(10, backlog - i) }, async (_, k) => await change(`backlog ${i + k}`)))
  const committed = (Date.now() - started) / 1000
  await until(() => receiver.received.length >= single + backlog, 150_000, 'the backlog')
  const times = receiver.received.slice(single).map((r) => r.at)
  const seconds = (Math.max(...times) - started) / 1000
  t.equal(receiver.received.length, single + backlog, 'each event once')
  t.comment(`${backlog} changes committed in ${committed.toFixed(1)} s (10 at a time); all delivered ${seconds.toFixed(1)} s after the first commit: ${(backlog / seconds).toFixed(1)} deliveries/s`)
  const [stats] = await app.orm.em.fork().execute<Array<{ avg: number, fanned: number, sent: number }>>(
    `SELECT avg(d.duration_ms)::float AS avg, extract(epoch FROM max(d.created_at) - min(d.created_at))::float AS fanned,
      extract(epoch FROM max(d.delivered_at) - min(d.delivered_at))::float AS sent FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.title LIKE 'backlog%'`)
  t.comment(`the backlog's deliveries were made over ${stats?.fanned.toFixed(1)} s and delivered over ${stats?.sent.toFixed(1)} s; ` +
    `one attempt (signed POST, TLS, to the local receiver): ${stats?.avg.toFixed(1)} ms on average`)
})

/**
 * The cost a webhook event adds to the write that causes it: the event row is written in the
 * change's own transaction, for every change of a reported type, whether an endpoint subscribes
 * or not (fan-out comes later, outside the request). Same run, interleaved: a change whose
 * activity type no event reports (`instance.stopping`), one that is reported, in a company
 * with no endpoint and in one whose endpoint subscribes.
 */
t.test('figures: what recording an event adds to the change that causes it', async (t) => {
  const receiver = await startReceiver(t)
  const { app } = await build(t, { env: { ...receiver.env, WEBHOOK_FANOUT_MS: 100 } })
  const quiet = await signup(app)
  const subscribed = await signup(app)
  await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(subscribed.token), payload: { url: receiver.url, events: ['instance.running'] } })
  const timed = async (tenantId: string, type: 'instance.stopping' | 'instance.running') => {
    const started = performance.now()
    await app.orm.em.fork().transactional(async (tx) => {
      app.activity.record(tx, { kind: 'system', tenantId, job: 'figures' }, { type, title: 'figure', targetType: 'instance', targetId: '0' })
    })
    return performance.now() - started
  }
  const cases = [
    { label: 'a change no event reports', tenantId: quiet.user.tenant_id, type: 'instance.stopping' as const },
    { label: 'a reported change, no endpoint', tenantId: quiet.user.tenant_id, type: 'instance.running' as const },
    { label: 'a reported change, a subscribed endpoint', tenantId: subscribed.user.tenant_id, type: 'instance.running' as const }
  ]
  const rounds = Number(process.env.FIGURE_WRITES ?? 300)
  const samples = cases.map(() => [] as number[])
  for (let i = 0; i < rounds; i++) {
    for (const [k, c] of cases.entries()) samples[k]?.push(await timed(c.tenantId, c.type))
  }
  const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.5)
  const base = median(samples[0] ?? [])
  for (const [k, c] of cases.entries()) {
    const value = median(samples[k] ?? [])
    t.comment(`${c.label}: median ${value.toFixed(2)} ms per committed change (${(value / base).toFixed(2)}x)`)
  }
  // An event no endpoint wants is dropped at fan-out; the subscribed company's each reach its receiver once.
  await until(() => receiver.received.length >= rounds, 60_000, 'the subscribed changes')
  t.equal(receiver.received.length, rounds, 'each subscribed change delivered once, nothing for the company without an endpoint')
})
