import t from 'tap'
import { build, TEST_JWT_SECRET } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activityTypes, insertPlan } from '../../../support/billing-fixtures.ts'
import { confirm, postWebhook, subscribeTo } from '../../../support/billing-webhooks.ts'
import { runCli, type CliRun } from '../../../support/process.ts'

/** `node ops/payments.ts …` with only the environment given here. */
function paymentsCli (databaseUrl: string, args: string[]): Promise<CliRun> {
  return runCli('ops/payments.ts', args, { DATABASE_URL: databaseUrl, JWT_SECRET: TEST_JWT_SECRET, PAYMENT_PROVIDERS: 'sandbox' })
}

t.test('the sandbox route pays one of the company\'s references through the webhook path', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  const pay = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/payments/sandbox/pay', headers: bearer(admin.token), payload })

  const wrong = await pay({ payment_reference: pending.payment_reference, amount: 10 })
  t.equal(wrong.statusCode, 200)
  t.match(wrong.json(), { duplicate: false, payment_status: 'failed', activated: false, reason: /Amount 10.00 EUR/ })
  const unknown = await pay({ payment_reference: 'ERP-NOT-OURS' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'PAYMENT_REFERENCE_NOT_FOUND')

  const right = await pay({ payment_reference: pending.payment_reference })
  t.match(right.json(), { success: true, duplicate: false, payment_status: 'paid', activated: true })
  t.equal((await confirm(app, admin.token, plan.id)).json().subscription.status, 'active')
  const [row] = await app.sql<{ provider: string, provider_transaction_id: string }>({ text: "SELECT provider, provider_transaction_id FROM payments WHERE status = 'paid'", values: [] })
  t.match(row, { provider: 'sandbox', provider_transaction_id: /^sandbox-/ })
  t.same(await activityTypes(app, admin.user.tenant_id), ['subscription.payment_requested', 'payment.failed', 'payment.received', 'subscription.activated'])
})

t.test('with the sandbox disabled, neither its route nor its webhook exists', async (t) => {
  const { app } = await build(t, { env: { PAYMENT_PROVIDERS: '' } })
  const admin = await signup(app)
  const pending = await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  const pay = await app.inject({ method: 'POST', url: '/api/payments/sandbox/pay', headers: bearer(admin.token), payload: { payment_reference: pending.payment_reference } })
  t.equal(pay.statusCode, 404)
  t.equal(pay.json().error.code, 'PAYMENT_PROVIDER_NOT_FOUND')
  t.equal((await postWebhook(app, { reference: pending.payment_reference, amount: 4900 })).statusCode, 404)
})

t.test('an unsupported provider in PAYMENT_PROVIDERS stops the app with a message naming the variable', async (t) => {
  await t.rejects(build(t, { env: { PAYMENT_PROVIDERS: 'sandbox,paypa1' } }), /Invalid configuration: PAYMENT_PROVIDERS="sandbox,paypa1" \(names "paypa1", which is not supported \(supported: sandbox\)\)/)
})

t.test('ops/payments.ts pay: the operator\'s way to mark a reference paid', async (t) => {
  const { app, databaseUrl } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)

  const usage = await paymentsCli(databaseUrl, ['pay'])
  t.equal(usage.code, 2)
  t.match(usage.stderr, /needs a payment reference/)
  const badAmount = await paymentsCli(databaseUrl, ['pay', pending.payment_reference, '--amount', 'lots'])
  t.equal(badAmount.code, 2)

  const short = await paymentsCli(databaseUrl, ['pay', pending.payment_reference, '--amount', '12.5'])
  t.equal(short.code, 1, short.stderr)
  t.match(short.stdout, /not applied: Amount 12.50 EUR does not match the 49.00 EUR due/)
  const unknown = await paymentsCli(databaseUrl, ['pay', 'ERP-NOBODY'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /PAYMENT_REFERENCE_NOT_FOUND/)

  const paid = await paymentsCli(databaseUrl, ['pay', pending.payment_reference, '--json'])
  t.equal(paid.code, 0, paid.stderr)
  t.match(JSON.parse(paid.stdout), { duplicate: false, payment_status: 'paid', activated: true })
  t.equal((await confirm(app, admin.token, plan.id)).json().subscription.status, 'active', 'the portal sees it at once')
})
