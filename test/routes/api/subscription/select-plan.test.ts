import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activityTypes, insertPlan, insertTrialPlan } from '../../../support/billing-fixtures.ts'

const valid = { users: 3, storage: 0, workers: 1, instances: 1, billing_cycle: 'monthly' }

t.test('select-plan checks the plan\'s limits with codes naming the field and the maximum', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const plan = await insertPlan(app, { maxUsers: 20, maxInstances: 3, maxWorkers: 4 })
  const select = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/subscription/select-plan', headers: bearer(admin.token), payload: { plan_id: plan.id, ...valid, ...payload } })

  for (const [field, value, maximum] of [['users', 21, 20], ['instances', 4, 3], ['workers', 5, 4]] as const) {
    const response = await select({ [field]: value })
    t.equal(response.statusCode, 400, field)
    t.match(response.json().error, { code: 'PLAN_LIMIT_EXCEEDED', details: { field, maximum, requested: value } }, field)
    t.match(response.json().error.message, `at most ${maximum} ${field}`)
  }
  for (const payload of [{ users: 0 }, { storage: -1 }, { storage: 1.5 }, { users: '3' }, { billing_cycle: 'weekly' }, { extra: 1 }]) {
    const response = await select(payload)
    t.equal(response.statusCode, 400, JSON.stringify(payload))
    t.equal(response.json().error.code, 'VALIDATION_FAILED', JSON.stringify(payload))
  }
  t.same(await activityTypes(app, admin.user.tenant_id), [], 'nothing stored')

  const max = await select({ users: 20, instances: 3, workers: 4, storage: 1000 })
  t.equal(max.statusCode, 200, 'the maximum itself is allowed; storage has no plan maximum')
})

t.test('unknown, inactive and trial plans cannot be configured for checkout', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const select = (planId: number) => app.inject({ method: 'POST', url: '/api/subscription/select-plan', headers: bearer(admin.token), payload: { plan_id: planId, ...valid } })
  const unknown = await select(987_654)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'PLAN_NOT_FOUND')
  t.equal((await select((await insertPlan(app, { active: false })).id)).json().error.code, 'PLAN_NOT_FOUND', 'a retired plan is not offered')
  const trial = await select((await insertTrialPlan(app)).id)
  t.equal(trial.statusCode, 400)
  t.equal(trial.json().error.code, 'PLAN_IS_TRIAL')
  const subscribeTrial = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers: bearer(admin.token), payload: { plan_id: (await insertTrialPlan(app)).id, billing_cycle: 'monthly' } })
  t.equal(subscribeTrial.json().error.code, 'PLAN_IS_TRIAL', 'nor subscribed to')
})

t.test('choosing again replaces the one configuration; subscribe uses it only for its plan', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const business = await insertPlan(app)
  const other = await insertPlan(app, { includedUsers: 2, basePriceMonthly: 1000, extraUserPriceMonthly: 500 })
  const select = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/subscription/select-plan', headers: bearer(admin.token), payload: { plan_id: business.id, ...valid, ...payload } })

  const first = (await select({ users: 4 })).json().configuration
  const second = (await select({ users: 6, billing_cycle: 'yearly' })).json().configuration
  t.equal(second.id, first.id, 'same configuration, changed')
  t.match(second, { users: 6, billing_cycle: 'yearly' })
  const [row] = await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM plan_configurations WHERE tenant_id = $1', values: [admin.user.tenant_id] })
  t.equal(row?.n, 1)

  const subscribed = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers: bearer(admin.token), payload: { plan_id: business.id, billing_cycle: 'monthly' } })
  t.match(subscribed.json().subscription, { users: 6, billing_cycle: 'monthly', amount_due: 79 }, 'the configuration\'s quantities, the cycle of the subscribe call')
  const elsewhere = await app.inject({ method: 'POST', url: '/api/subscription/subscribe', headers: bearer(admin.token), payload: { plan_id: other.id, billing_cycle: 'monthly' } })
  t.match(elsewhere.json().subscription, { users: 2, storage: 0, instances: 1, workers: 1, amount_due: 10 }, 'another plan: its defaults')
})
