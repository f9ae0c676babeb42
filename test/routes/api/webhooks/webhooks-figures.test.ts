import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { startReceiver, until } from '../../../support/webhook-receiver.ts'

t.setTimeout(120_000)

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

/**
 * Figures, not assertions on time: events per second to a local receiver, and the delay from
 * the change's commit to the receiver (p50, p99). Printed as a comment.
 */
t.test('figures: delivery rate and delay from change to delivery', async (t) => {
  const receiver = await startReceiver(t)
  const { app } = await build(t, { env: { ...receiver.env, WEBHOOK_FANOUT_MS: 100 } })
  const admin = await signup(app)
  await app.inject({ method: 'POST', url: '/api/webhooks', headers: bearer(admin.token), payload: { url: receiver.url, events: ['instance.running'] } })
  const actor = { kind: 'system' as const, tenantId: admin.user.tenant_id, job: 'figures' }
  const events = 300
  const committedAt = new Map<string, number>()
  const start = Date.now()
  for (let i = 0; i < events; i++) {
    await app.orm.em.fork().transactional(async (tx) => {
      app.activity.record(tx, actor, { type: 'instance.running', title: `change ${i}`, targetType: 'instance', targetId: String(i) })
    })
    committedAt.set(`change ${i}`, Date.now())
  }
  await until(() => receiver.received.length >= events, 100_000, 'every event')
  const seconds = (Math.max(...receiver.received.map((r) => r.at)) - start) / 1000
  const [row] = await app.orm.em.fork().execute<Array<{ titles: Record<string, string> }>>(
    'SELECT jsonb_object_agg(id, title) AS titles FROM webhook_events')
  const titles = row?.titles ?? {}
  const delays = receiver.received.map((r) => r.at - (committedAt.get(titles[r.json.id] ?? '') ?? NaN)).filter(Number.isFinite).sort((a, b) => a - b)
  t.equal(receiver.received.length, events, 'each event once')
  t.comment(`${events} events in ${seconds.toFixed(1)} s: ${(events / seconds).toFixed(0)} deliveries/s (commits sequential, WEBHOOK_FANOUT_MS=100); ` +
    `change to delivery p50 ${percentile(delays, 0.5)} ms, p99 ${percentile(delays, 0.99)} ms`)
})
