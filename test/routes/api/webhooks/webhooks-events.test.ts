import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { insertPlan } from '../../../support/billing-fixtures.ts'
import { build } from '../../../support/build.ts'
import { startReceiver, until } from '../../../support/webhook-receiver.ts'

t.setTimeout(90_000)

t.test('subscription activated, then renewed, through the real subscription routes: each event once, with the subscription as data', async (t) => {
  const receiver = await startReceiver(t)
  const { app } = await build(t, { env: receiver.env })
  const admin = await signup(app)
  const headers = bearer(admin.token)
  const created = await app.inject({ method: 'POST', url: '/api/webhooks', headers, payload: { url: receiver.url, events: ['subscription.activated', 'subscription.renewed', 'subscription.ended'] } })
  receiver.secrets.push(created.json().secret)
  const plan = await insertPlan(app, { name: 'Free Test', basePriceMonthly: 0, extraUserPriceMonthly: 0, storageOveragePrice: 0 })
  const subscribe = async (cycle: 'monthly' | 'yearly') => {
    const selected = await app.inject({ method: 'POST', url: '/api/subscription/select-plan', headers, payload: { plan_id: plan.id, users: 1, storage: 1, workers: 1, instances: 1, billing_cycle: cycle } })
    t.equal(selected.statusCode, 200, selected.body)
    const subscribed = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers, payload: { plan_id: plan.id, billing_cycle: cycle } })
    t.equal(subscribed.statusCode, 200, subscribed.body)
    return subscribed.json().subscription
  }
  const first = await subscribe('monthly')
  t.equal(first.status, 'active', 'a free plan is active at once')
  await until(() => receiver.received.length === 1, 15_000, 'the activation')
  // A new period on the active subscription (another cycle): a renewal.
  await subscribe('yearly')
  await until(() => receiver.received.length === 2, 15_000, 'the renewal')
  const [activated, renewed] = receiver.received
  t.match(activated!.json, { type: 'subscription.activated', data: { status: 'active', plan: { id: plan.id } } })
  t.match(renewed!.json, { type: 'subscription.renewed', data: { status: 'active' } })
  t.ok(receiver.received.every((r) => r.verifiedWith.length === 1), 'signed')
  const feed = (await app.inject({ method: 'GET', url: '/api/activity', headers })).json().activities.map((a: { type: string }) => a.type)
  t.ok(feed.includes('subscription.renewed'), 'the renewal is in the activity feed under its own type')
})
