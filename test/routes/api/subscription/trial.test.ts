import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activityTypes, billingSnapshot, insertPlan, insertTrialPlan } from '../../../support/billing-fixtures.ts'
import { subscribeTo } from '../../../support/billing-webhooks.ts'

const DAY_MS = 86_400_000

t.test('demo starts the one trial; a second one, a paid plan or an unknown plan is refused', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const trial = await insertTrialPlan(app, { trialDays: 14 })
  const paid = await insertPlan(app)
  const demo = (planId: number) => app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(admin.token), payload: { plan_id: planId } })

  const notTrial = await demo(paid.id)
  t.equal(notTrial.statusCode, 400)
  t.equal(notTrial.json().error.code, 'PLAN_NOT_TRIAL')
  t.equal((await demo(999_999)).json().error.code, 'PLAN_NOT_FOUND')

  const before = Date.now()
  const started = await demo(trial.id)
  t.equal(started.statusCode, 200, started.body)
  const subscription = started.json().subscription
  t.match(subscription, { status: 'trialing', plan: { id: trial.id }, amount: 0, amount_due: 0, payment_reference: null })
  const ends = new Date(subscription.trial_ends_at).getTime()
  t.ok(Math.abs(ends - (before + 14 * DAY_MS)) < 60_000, 'ends trial_days from now')
  t.equal(subscription.renewal_date, subscription.trial_ends_at)

  const again = await demo(trial.id)
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'TRIAL_ALREADY_USED')
  t.same(await activityTypes(app, admin.user.tenant_id), ['subscription.trial_started'])
})

t.test('a company that already subscribed cannot start a trial', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  await subscribeTo(app, admin.token, (await insertPlan(app)).id)
  const response = await app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(admin.token), payload: { plan_id: (await insertTrialPlan(app)).id } })
  t.equal(response.statusCode, 409)
  t.match(response.json().error, { code: 'SUBSCRIPTION_TRANSITION_INVALID', details: { from: 'pending_payment', to: 'trialing' } })
})

t.test('two trials started at the same moment: exactly one', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const trial = await insertTrialPlan(app)
  const responses = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(admin.token), payload: { plan_id: trial.id } })))
  t.same(responses.map((r) => r.statusCode).sort(), [200, 409, 409])
  t.same(await activityTypes(app, admin.user.tenant_id), ['subscription.trial_started'])
})

t.test('the sweeper ends due trials as the system, once; the trial stays used', async (t) => {
  const { app } = await build(t)
  const trial = await insertTrialPlan(app)
  const due = await signup(app)
  const running = await signup(app)
  for (const account of [due, running]) {
    await app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(account.token), payload: { plan_id: trial.id } })
  }
  await app.sql({ text: "UPDATE subscriptions SET trial_ends_at = now() - interval '1 minute' WHERE tenant_id = $1", values: [due.user.tenant_id] })
  const runningBefore = await billingSnapshot(app, running.user.tenant_id)

  t.same(await app.subscriptions.sweepTrialsNow(), { expired: 1 })
  const current = (await app.inject({ method: 'GET', url: '/api/subscription/current', headers: bearer(due.token) })).json().subscription
  t.equal(current.status, 'expired')
  const [activity] = await app.sql<{ type: string, actor_kind: string, actor_id: string, target_id: string }>({
    text: "SELECT type, actor_kind, actor_id, target_id FROM activities WHERE tenant_id = $1 AND type = 'subscription.trial_expired'", values: [due.user.tenant_id]
  })
  t.same(activity, { type: 'subscription.trial_expired', actor_kind: 'system', actor_id: 'trial-expiry', target_id: current.id })
  t.equal(await billingSnapshot(app, running.user.tenant_id), runningBefore, 'a running trial is untouched')

  const afterFirst = await billingSnapshot(app, due.user.tenant_id)
  t.same(await app.subscriptions.sweepTrialsNow(), { expired: 0 }, 'a second sweep finds nothing')
  t.equal(await billingSnapshot(app, due.user.tenant_id), afterFirst, 'and changes nothing')

  const demoAgain = await app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(due.token), payload: { plan_id: trial.id } })
  t.equal(demoAgain.json().error.code, 'TRIAL_ALREADY_USED', 'even after it ended')
  const converted = await subscribeTo(app, due.token, (await insertPlan(app)).id)
  t.equal(converted.status, 'pending_payment', 'an expired trial can still subscribe')
})
