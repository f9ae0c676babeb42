import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activityTypes, insertPlan } from '../../../support/billing-fixtures.ts'
import { confirm, postWebhook, subscribeTo } from '../../../support/billing-webhooks.ts'

const DAY_MS = 86_400_000

t.test('whole flow: select-plan, subscribe, signed webhook, confirm, current', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const headers = bearer(admin.token)

  const none = await app.inject({ method: 'GET', url: '/api/subscription/current', headers })
  t.equal(none.statusCode, 404)
  t.match(none.json(), { success: false, error: { code: 'SUBSCRIPTION_NOT_FOUND' } })

  const selected = await app.inject({
    method: 'POST', url: '/api/subscription/select-plan', headers,
    payload: { plan_id: plan.id, users: 5, storage: 4, workers: 2, instances: 2, billing_cycle: 'yearly' }
  })
  t.equal(selected.statusCode, 200, selected.body)
  const { configuration, quote } = selected.json()
  t.match(configuration, { plan: { id: plan.id, code: plan.code, name: plan.name }, users: 5, storage: 4, workers: 2, instances: 2, billing_cycle: 'yearly' })
  t.type(configuration.id, 'number')
  // (49.00 + 2 x 10.00) x 12 less 10% = 745.20; 4 GB x 0.50 x 12 less 10% = 21.60
  t.match(quote, { plan_id: plan.id, billing_cycle: 'yearly', total: 766.8, currency: 'EUR' })

  const subscribed = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers, payload: { plan_id: plan.id, billing_cycle: 'yearly' } })
  t.equal(subscribed.statusCode, 200, subscribed.body)
  const pending = subscribed.json().subscription
  t.match(pending, { status: 'pending_payment', amount: 766.8, amount_due: 766.8, currency: 'EUR', users: 5, storage: 4, workers: 2, instances: 2, billing_cycle: 'yearly' })
  t.match(pending.payment_reference, /^ERP-[0-9A-Z]{20}$/)
  t.equal(subscribed.json().quote.total, 766.8, 'amount_due is the quote total for the cycle')

  const paid = await postWebhook(app, { reference: pending.payment_reference, amount: 76680 })
  t.equal(paid.statusCode, 200, paid.body)
  t.match(paid.json(), { success: true, duplicate: false, payment_status: 'paid', activated: true })

  const before = Date.now()
  const confirmed = await confirm(app, admin.token, plan.id)
  t.equal(confirmed.statusCode, 200, confirmed.body)
  const active = confirmed.json().subscription
  t.match(active, { status: 'active', amount_due: 0, amount: 766.8, payment_reference: pending.payment_reference })
  const start = new Date(active.current_period_start)
  const renewal = new Date(active.renewal_date)
  t.ok(start.getTime() <= before && before - start.getTime() < 60_000, 'the period started when the payment arrived')
  t.equal(renewal.getUTCFullYear(), start.getUTCFullYear() + 1, 'renews one calendar year later')
  t.equal(renewal.getUTCMonth(), start.getUTCMonth())

  const current = await app.inject({ method: 'GET', url: '/api/subscription/current', headers })
  t.equal(current.statusCode, 200)
  t.same(current.json().subscription, active, 'current shows it')
  t.match(current.json().subscription.configuration, { id: configuration.id, users: 5 })
  t.same(await activityTypes(app, admin.user.tenant_id), ['subscription.plan_selected', 'subscription.payment_requested', 'payment.received', 'subscription.activated'])
})

t.test('monthly: the renewal date is one calendar month ahead; a zero price activates at once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  t.equal(pending.amount_due, 49, 'defaults without a stored configuration: the included users, no extra storage')
  t.equal((await postWebhook(app, { reference: pending.payment_reference, amount: 4900 })).statusCode, 200)
  const active = (await confirm(app, admin.token, plan.id)).json().subscription
  const start = new Date(active.current_period_start)
  const renewal = new Date(active.renewal_date)
  t.equal((renewal.getUTCFullYear() * 12 + renewal.getUTCMonth()) - (start.getUTCFullYear() * 12 + start.getUTCMonth()), 1)
  t.ok(renewal.getTime() - start.getTime() >= 28 * DAY_MS && renewal.getTime() - start.getTime() <= 31 * DAY_MS)

  const free = await insertPlan(app, { basePriceMonthly: 0, extraUserPriceMonthly: 0, storageOveragePrice: 0 })
  const other = await signup(app)
  const response = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers: bearer(other.token), payload: { plan_id: free.id, billing_cycle: 'monthly' } })
  t.equal(response.statusCode, 200)
  t.match(response.json().subscription, { status: 'active', amount_due: 0, payment_reference: null })
  t.ok(response.json().subscription.renewal_date)
})

t.test('subscribes and plan choices racing each other leave one row each and one reference', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const headers = bearer(admin.token)
  const selects = await Promise.all([4, 5, 6].map((users) => app.inject({
    method: 'POST', url: '/api/subscription/select-plan', headers, payload: { plan_id: plan.id, users, storage: 0, workers: 1, instances: 1, billing_cycle: 'monthly' }
  })))
  t.same(selects.map((r) => r.statusCode), [200, 200, 200])
  t.equal(new Set(selects.map((r) => r.json().configuration.id)).size, 1, 'one configuration, changed three times')

  const subscribes = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers, payload: { plan_id: plan.id, billing_cycle: 'monthly' } })))
  t.same(subscribes.map((r) => r.statusCode), [200, 200, 200])
  t.equal(new Set(subscribes.map((r) => r.json().subscription.payment_reference)).size, 1, 'the same pending reference for all')
  const types = await activityTypes(app, admin.user.tenant_id)
  t.equal(types.filter((type) => type === 'subscription.payment_requested').length, 1)
  t.equal(types.filter((type) => type === 'subscription.plan_selected').length, 3)
})
