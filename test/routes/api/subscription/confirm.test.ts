import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activityTypes, billingSnapshot, insertPlan, insertTrialPlan } from '../../../support/billing-fixtures.ts'
import { confirm, postWebhook, subscribeTo } from '../../../support/billing-webhooks.ts'

t.test('confirm without a confirmed payment: 402 PAYMENT_REQUIRED, nothing changes', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  const before = await billingSnapshot(app, admin.user.tenant_id)

  const response = await confirm(app, admin.token, plan.id)
  t.equal(response.statusCode, 402)
  t.match(response.json(), { success: false, error: { code: 'PAYMENT_REQUIRED', details: { payment_reference: pending.payment_reference, amount_due: 49, currency: 'EUR' } } })
  t.match(response.json().error.message, `No payment of 49.00 EUR for reference ${pending.payment_reference}`)
  t.equal(await billingSnapshot(app, admin.user.tenant_id), before)
})

t.test('a payment of the wrong amount is recorded failed and does not activate; confirm says why', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)

  const short = await postWebhook(app, { reference: pending.payment_reference, amount: 4000 })
  t.equal(short.statusCode, 200, 'answered 200: the provider must not retry')
  t.match(short.json(), { duplicate: false, payment_status: 'failed', activated: false, reason: /Amount 40.00 EUR does not match the 49.00 EUR due/ })
  const wrongCurrency = await postWebhook(app, { reference: pending.payment_reference, amount: 4900, currency: 'USD' })
  t.match(wrongCurrency.json(), { payment_status: 'failed', reason: /Currency USD/ })

  const payments = await app.sql<{ status: string, failure_reason: string, paid_at: Date | null }>({
    text: 'SELECT status, failure_reason, paid_at FROM payments WHERE tenant_id = $1 ORDER BY created_at', values: [admin.user.tenant_id]
  })
  t.same(payments.map((p) => p.status), ['failed', 'failed'])
  t.ok(payments.every((p) => p.paid_at !== null), 'the provider said the money moved: paid_at keeps that for support')

  const refused = await confirm(app, admin.token, plan.id)
  t.equal(refused.statusCode, 402)
  t.match(refused.json().error.message, /was refused .*49.00 EUR is still due/)
  const current = (await app.inject({ method: 'GET', url: '/api/subscription/current', headers: bearer(admin.token) })).json().subscription
  t.match(current, { status: 'pending_payment', amount_due: 49 })

  t.equal((await postWebhook(app, { reference: pending.payment_reference, amount: 4900 })).json().activated, true, 'the right amount still works afterwards')
  t.equal((await confirm(app, admin.token, plan.id)).json().subscription.status, 'active')
})

t.test('confirm is idempotent once active, and records one activation', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  await postWebhook(app, { reference: pending.payment_reference, amount: 4900 })
  const first = await confirm(app, admin.token, plan.id)
  const second = await confirm(app, admin.token, plan.id)
  t.equal(second.statusCode, 200)
  t.same(second.json(), first.json())
  t.same((await activityTypes(app, admin.user.tenant_id)).filter((type) => type === 'subscription.activated'), ['subscription.activated'])

  const activity = await app.sql<{ target_id: string, actor_kind: string, actor_id: string }>({
    text: "SELECT target_id, actor_kind, actor_id FROM activities WHERE tenant_id = $1 AND type IN ('payment.received', 'subscription.activated') ORDER BY id", values: [admin.user.tenant_id]
  })
  const [payment] = await app.sql<{ id: string }>({ text: 'SELECT id FROM payments WHERE tenant_id = $1', values: [admin.user.tenant_id] })
  t.same(activity, [
    { target_id: payment?.id, actor_kind: 'system', actor_id: 'payments:sandbox' },
    { target_id: pending.id, actor_kind: 'system', actor_id: 'payments:sandbox' }
  ], 'the webhook acts as the provider\'s system job')
})

t.test('illegal calls are refused, never a silent overwrite', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const trial = await insertTrialPlan(app)
  const headers = bearer(admin.token)

  t.equal((await confirm(app, admin.token, plan.id)).json().error.code, 'SUBSCRIPTION_NOT_FOUND', 'confirm before any subscription: 404')

  t.equal((await app.inject({ method: 'POST', url: '/api/subscription/demo', headers, payload: { plan_id: trial.id } })).statusCode, 200)
  const before = await billingSnapshot(app, admin.user.tenant_id)
  const onTrial = await confirm(app, admin.token, trial.id)
  t.equal(onTrial.statusCode, 409)
  t.match(onTrial.json().error, { code: 'NOTHING_TO_CONFIRM', details: { status: 'trialing' } })
  t.equal(await billingSnapshot(app, admin.user.tenant_id), before)

  const pending = await subscribeTo(app, admin.token, plan.id)
  t.equal(pending.status, 'pending_payment', 'a trial converts to a paid plan')
  const otherPlan = await insertPlan(app)
  const mismatch = await confirm(app, admin.token, otherPlan.id)
  t.equal(mismatch.statusCode, 409)
  t.match(mismatch.json().error, { code: 'SUBSCRIPTION_PLAN_MISMATCH', details: { plan_id: plan.id } })

  await app.sql({ text: "UPDATE subscriptions SET status = 'past_due' WHERE tenant_id = $1", values: [admin.user.tenant_id] })
  const frozen = await billingSnapshot(app, admin.user.tenant_id)
  const resubscribe = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers, payload: { plan_id: plan.id, billing_cycle: 'yearly' } })
  t.equal(resubscribe.statusCode, 409)
  t.match(resubscribe.json().error, { code: 'SUBSCRIPTION_TRANSITION_INVALID', message: 'A subscription cannot go from past_due to pending_payment', details: { from: 'past_due', to: 'pending_payment' } })
  t.equal(await billingSnapshot(app, admin.user.tenant_id), frozen, 'nothing changed')
})

t.test('subscribing again: unchanged keeps the reference, a change re-quotes under a new one', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const first = await subscribeTo(app, admin.token, plan.id)
  const same = await subscribeTo(app, admin.token, plan.id)
  t.equal(same.payment_reference, first.payment_reference)
  const yearly = await subscribeTo(app, admin.token, plan.id, { cycle: 'yearly' })
  t.not(yearly.payment_reference, first.payment_reference)
  t.equal(yearly.amount_due, 529.2, '49.00 x 12 less 10%')
  t.same(await activityTypes(app, admin.user.tenant_id), ['subscription.payment_requested', 'subscription.payment_requested'])

  const stale = await postWebhook(app, { reference: first.payment_reference, amount: 4900 })
  t.equal(stale.statusCode, 404, 'the replaced reference is unknown')
  t.equal(stale.json().error.code, 'PAYMENT_REFERENCE_NOT_FOUND')
})
