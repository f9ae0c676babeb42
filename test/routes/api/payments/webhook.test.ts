import t from 'tap'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { activityTypes, billingSnapshot, insertPlan } from '../../../support/billing-fixtures.ts'
import { SANDBOX_SECRET, confirm, postWebhook, subscribeTo } from '../../../support/billing-webhooks.ts'
import { signBody } from '../../../../plugins/app/payments/hmac-signature.ts'

t.test('a bad or missing signature is a 401 and records nothing', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const pending = await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  const before = await billingSnapshot(app, admin.user.tenant_id)
  const event = { reference: pending.payment_reference, amount: 4900 }

  for (const [label, options] of [
    ['missing', { signature: null }],
    ['another secret', { secret: 'not-the-sandbox-secret-at-all' }],
    ['not hex', { signature: 'sha256=zz' }],
    ['wrong scheme', { signature: signBody('x', 'y').replace('sha256', 'sha1') }]
  ] as const) {
    const response = await postWebhook(app, event, options)
    t.equal(response.statusCode, 401, label)
    t.match(response.json(), { success: false, error: { code: 'WEBHOOK_SIGNATURE_INVALID' } }, label)
  }
  t.equal(await billingSnapshot(app, admin.user.tenant_id), before, 'no payment, no activity, no change')
})

t.test('unknown or disabled providers are 404; an unreadable signed event is a 400', async (t) => {
  const { app } = await build(t)
  for (const provider of ['mpesa', 'constructor']) {
    const response = await postWebhook(app, { reference: 'ERP-X', amount: 1 }, { provider })
    t.equal(response.statusCode, 404, provider)
    t.equal(response.json().error.code, 'PAYMENT_PROVIDER_NOT_FOUND', provider)
  }
  const body = '{"reference": "ERP-X", "amount": 1.5, "currency": "EUR", "status": "paid", "transaction_id": "t"}'
  const response = await app.inject({ method: 'POST', url: '/api/payments/webhook/sandbox', headers: { 'content-type': 'application/json', 'x-signature': signBody(SANDBOX_SECRET, body) }, payload: body })
  t.equal(response.statusCode, 400)
  t.match(response.json().error, { code: 'PAYMENT_EVENT_INVALID', details: { field: 'amount' } })

  const unknown = await postWebhook(app, { reference: 'ERP-NOBODY', amount: 4900 })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'PAYMENT_REFERENCE_NOT_FOUND')
  t.same(await app.sql({ text: 'SELECT id FROM payments', values: [] }), [], 'nothing recorded')
})

t.test('the signature covers the exact bytes, whatever the content type', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const pending = await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  // Odd spacing: re-serialising the parsed JSON would change the bytes and break the signature.
  const body = `{ "transaction_id":"tx-raw",  "reference":"${pending.payment_reference}", "amount":4900, "currency":"EUR", "status":"paid" }`
  const response = await app.inject({ method: 'POST', url: '/api/payments/webhook/sandbox', headers: { 'content-type': 'text/plain', 'x-signature': signBody(SANDBOX_SECRET, body) }, payload: body })
  t.equal(response.statusCode, 200, response.body)
  t.equal(response.json().activated, true)

  const tooLarge = await app.inject({ method: 'POST', url: '/api/payments/webhook/sandbox', headers: { 'content-type': 'application/json' }, payload: `{"pad":"${'x'.repeat(70_000)}"}` })
  t.equal(tooLarge.statusCode, 413)
})

t.test('a configured secret replaces the derived sandbox secret', async (t) => {
  const secret = 'configured-sandbox-secret-0123456789'
  const { app } = await build(t, { env: { PAYMENT_WEBHOOK_SECRETS: `sandbox:${secret}` } })
  const admin = await signup(app)
  const pending = await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  t.equal((await postWebhook(app, { reference: pending.payment_reference, amount: 4900 })).statusCode, 401, 'the derived secret no longer works')
  t.equal((await postWebhook(app, { reference: pending.payment_reference, amount: 4900 }, { secret })).statusCode, 200)
})

t.test('a replayed transaction changes nothing and answers duplicate', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const pending = await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  const event = { transaction_id: 'provider-tx-1', reference: pending.payment_reference, amount: 4900 }
  t.match((await postWebhook(app, event)).json(), { duplicate: false, activated: true })
  const after = await billingSnapshot(app, admin.user.tenant_id)

  const replays = await Promise.all([postWebhook(app, event), postWebhook(app, event), postWebhook(app, { ...event, amount: 1 })])
  for (const replay of replays) {
    t.equal(replay.statusCode, 200)
    t.same(replay.json(), { success: true, duplicate: true })
  }
  t.equal(await billingSnapshot(app, admin.user.tenant_id), after, 'same rows, same activity count')

  const failed = { transaction_id: 'provider-tx-2', reference: pending.payment_reference, amount: 1 }
  await postWebhook(app, failed)
  const afterFailed = await billingSnapshot(app, admin.user.tenant_id)
  t.same((await postWebhook(app, failed)).json(), { success: true, duplicate: true }, 'a refused payment replayed is a duplicate too')
  t.equal(await billingSnapshot(app, admin.user.tenant_id), afterFailed)
})

t.test('concurrent webhooks and confirms activate exactly once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  const event = { reference: pending.payment_reference, amount: 4900 }

  const results = await Promise.all([
    postWebhook(app, { ...event, transaction_id: 'race-a' }),
    confirm(app, admin.token, plan.id),
    postWebhook(app, { ...event, transaction_id: 'race-b' }),
    confirm(app, admin.token, plan.id)
  ])
  const [a, c1, b, c2] = results
  t.same([a?.statusCode, b?.statusCode], [200, 200], 'both deliveries accepted')
  t.same([a?.json().activated, b?.json().activated].sort(), [false, true], 'one of them activated')
  for (const c of [c1, c2]) t.ok(c?.statusCode === 200 || c?.statusCode === 402, `a racing confirm is 200 or 402 (${c?.statusCode})`)
  t.equal((await confirm(app, admin.token, plan.id)).json().subscription.status, 'active', 'confirm succeeds afterwards')

  const types = await activityTypes(app, admin.user.tenant_id)
  t.equal(types.filter((type) => type === 'subscription.activated').length, 1, 'one activation activity')
  const payments = await app.sql<{ provider_transaction_id: string, status: string, failure_reason: string | null }>({
    text: 'SELECT provider_transaction_id, status, failure_reason FROM payments WHERE tenant_id = $1 ORDER BY provider_transaction_id', values: [admin.user.tenant_id]
  })
  t.same(payments.map((p) => p.status).sort(), ['failed', 'paid'], 'the second payment is kept, not applied, for a refund')
  t.match(payments.find((p) => p.status === 'failed')?.failure_reason, /Nothing was due .*subscription active/)
  const [row] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM subscriptions WHERE tenant_id = $1 AND status = 'active'", values: [admin.user.tenant_id] })
  t.equal(row?.n, 1)
})

t.test('a webhook for one tenant\'s reference never touches another tenant', async (t) => {
  const { app } = await build(t)
  const plan = await insertPlan(app)
  const alice = await signup(app)
  const bob = await signup(app)
  const alicePending = await subscribeTo(app, alice.token, plan.id)
  await subscribeTo(app, bob.token, plan.id)
  const bobBefore = await billingSnapshot(app, bob.user.tenant_id)

  t.equal((await postWebhook(app, { reference: alicePending.payment_reference, amount: 4900 })).json().activated, true)
  t.equal(await billingSnapshot(app, bob.user.tenant_id), bobBefore, 'Bob\'s subscription, payments and feed are untouched')
  const [payment] = await app.sql<{ tenant_id: string }>({ text: 'SELECT tenant_id FROM payments', values: [] })
  t.equal(payment?.tenant_id, alice.user.tenant_id)
  t.equal((await confirm(app, bob.token, plan.id)).statusCode, 402, 'Bob still owes his own payment')
})
