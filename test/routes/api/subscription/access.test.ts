import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { billingSnapshot, insertPlan, insertTrialPlan } from '../../../support/billing-fixtures.ts'
import { confirm, postWebhook, subscribeTo } from '../../../support/billing-webhooks.ts'

t.test('a user-role member may read the subscription but gets 403 on every billing change', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })
  const plan = await insertPlan(app)
  const trial = await insertTrialPlan(app)
  const pending = await subscribeTo(app, admin.token, plan.id)
  const before = await billingSnapshot(app, admin.user.tenant_id)

  const calls = [
    ['/api/subscription/select-plan', { plan_id: plan.id, users: 3, storage: 0, workers: 1, instances: 1, billing_cycle: 'monthly' }],
    ['/api/subscription/subscribe', { plan_id: plan.id, billing_cycle: 'yearly' }],
    ['/api/subscription/confirm', { plan_id: plan.id }],
    ['/api/subscription/demo', { plan_id: trial.id }],
    ['/api/payments/sandbox/pay', { payment_reference: pending.payment_reference }]
  ] as const
  for (const [url, payload] of calls) {
    const response = await app.inject({ method: 'POST', url, headers: bearer(member.token), payload })
    t.equal(response.statusCode, 403, url)
    t.equal(response.json().error.code, 'FORBIDDEN', url)
  }
  t.equal(await billingSnapshot(app, admin.user.tenant_id), before, 'nothing changed')

  const read = await app.inject({ method: 'GET', url: '/api/subscription/current', headers: bearer(member.token) })
  t.equal(read.statusCode, 200)
  t.equal(read.json().subscription.payment_reference, pending.payment_reference)
})

t.test('another company cannot see, confirm or pay your subscription', async (t) => {
  const { app } = await build(t)
  const plan = await insertPlan(app)
  const victim = await signup(app)
  const attacker = await signup(app)
  const pending = await subscribeTo(app, victim.token, plan.id)
  await postWebhook(app, { reference: pending.payment_reference, amount: 1 }) // a refused payment sits there
  const before = await billingSnapshot(app, victim.user.tenant_id)

  const read = await app.inject({ method: 'GET', url: '/api/subscription/current', headers: bearer(attacker.token) })
  t.equal(read.statusCode, 404, 'the attacker has no subscription and sees none')
  t.equal((await confirm(app, attacker.token, plan.id)).json().error.code, 'SUBSCRIPTION_NOT_FOUND')
  const pay = await app.inject({ method: 'POST', url: '/api/payments/sandbox/pay', headers: bearer(attacker.token), payload: { payment_reference: pending.payment_reference } })
  t.equal(pay.statusCode, 404, 'another company\'s reference is unknown to the sandbox route')
  t.equal(pay.json().error.code, 'PAYMENT_REFERENCE_NOT_FOUND')

  await subscribeTo(app, attacker.token, plan.id)
  t.equal((await confirm(app, attacker.token, plan.id)).statusCode, 402, 'the attacker\'s confirm only looks at the attacker\'s own payments')
  t.equal(await billingSnapshot(app, victim.user.tenant_id), before, 'the victim\'s rows are unchanged')
})
