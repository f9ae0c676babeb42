import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { seedPlans } from '../../../../plugins/app/plans/catalog.ts'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { pricingViolations } from '../../../plugins/app/plans/pricing-invariants.ts'

const PRICING_FIELDS = [
  'annual_saving', 'annual_saving_percentage', 'annual_total', 'base_annual', 'base_monthly', 'billing_cycle', 'currency',
  'effective_monthly_annual', 'extra_storage', 'extra_storage_annual', 'extra_storage_monthly', 'monthly_total', 'plan_id',
  'plan_name', 'storage', 'storage_limit', 'storage_overage_price', 'total', 'users'
]

async function setup (t: Parameters<typeof build>[0]) {
  const built = await build(t)
  await seedPlans(built.orm.em.fork())
  const admin = await signup(built.app)
  const recommend = async (query = '', token = admin.token) => {
    const response = await built.app.inject({ method: 'GET', url: `/api/subscription/recommendation${query}`, headers: bearer(token) })
    return { status: response.statusCode, body: response.json() }
  }
  return { ...built, admin, recommend }
}

const sql = (app: FastifyInstance, text: string, values: unknown[] = []) => app.sql<Record<string, unknown>>({ text, values })

t.test('the parameter table, rule by rule, over HTTP', async (t) => {
  const { recommend } = await setup(t)
  const requested = async (query: string) => {
    const { status, body } = await recommend(query)
    t.equal(status, 200, query)
    return body.requested
  }
  t.same(await requested(''), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'default')
  t.same(await requested('?users=-5'), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'clamp: users -5 -> 1')
  t.same(await requested('?users=0'), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'clamp: users 0 -> 1')
  t.same(await requested('?billing_cycle=weekly'), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'fallback: weekly -> monthly')
  t.same(await requested('?billing_cycle=yearly&billing_cycle=weekly'), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'fallback: repeated -> monthly')
  t.same(await requested(`?billing_cycle=${'x'.repeat(2000)}`), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'fallback: however long')
  t.same(await requested('?users=2.7'), { users: 2, storage: 0, billing_cycle: 'monthly' }, 'rounding: users 2.7 -> 2')
  t.same(await requested('?storage=1.2'), { users: 1, storage: 2, billing_cycle: 'monthly' }, 'rounding: storage 1.2 -> 2')
  t.same(await requested('?storage=-4'), { users: 1, storage: 0, billing_cycle: 'monthly' }, 'negative storage -> 0')
  t.same(await requested('?users=12&storage=20&billing_cycle=yearly&unknown=1'), { users: 12, storage: 20, billing_cycle: 'yearly' })

  const refused: Array<[string, string]> = [
    ['?users=abc', 'users'], ['?storage=NaN', 'storage'], ['?storage=Infinity', 'storage'], ['?users=1e12', 'users'],
    ['?users=-Infinity', 'users'], ['?users=100001', 'users'], ['?storage=100000.5', 'storage'], ['?users=0x10', 'users'],
    [`?users=${'1'.padStart(33, '0')}`, 'users'], ['?users=1&users=2', 'users']
  ]
  for (const [query, field] of refused) {
    const { status, body } = await recommend(query)
    t.equal(status, 400, query)
    t.equal(body.error.code, 'VALIDATION_FAILED', query)
    t.same(body.error.details.fields.map((f: { field: string }) => f.field), [field], `${query} names ${field}`)
  }
})

t.test('recommends the cheapest plan that takes the users, priced with exactly the documented fields', async (t) => {
  const { recommend } = await setup(t)
  const pick = async (query: string) => (await recommend(query)).body
  const cases: Array<[string, string, boolean]> = [
    ['?users=5', 'starter', true],
    ['?users=8', 'starter', true],
    ['?users=9', 'business', true], // starter 29 + 6 x 9 = 83 > business 79
    ['?users=30', 'business', true], // monthly: business 219 < enterprise 224
    ['?users=30&billing_cycle=yearly', 'enterprise', true], // yearly: enterprise's 20 % beats business's 15 %
    ['?users=40', 'enterprise', true], // business 79 + 30 x 7 = 289 > enterprise 199 + 15 x 5 = 274
    ['?users=50', 'enterprise', true],
    ['?users=51', 'enterprise', true],
    ['?users=600', 'enterprise', false]
  ]
  for (const [query, code, fits] of cases) {
    const body = await pick(query)
    t.equal(body.recommended_plan.code, code, query)
    t.equal(body.recommended_plan.fits, fits, `${query}: fits ${fits}`)
    t.equal(body.pricing.plan_id, body.recommended_plan.id, `${query}: priced for that plan`)
    t.same(pricingViolations(body.pricing), [], query)
  }

  const body = await pick('?users=30&storage=20')
  t.same(Object.keys(body).sort(), ['configuration_id', 'demo', 'pricing', 'recommended_plan', 'requested', 'success', 'trial'])
  t.same(Object.keys(body.pricing).sort(), PRICING_FIELDS)
  t.same({ ...body.pricing, plan_id: 0 }, {
    plan_id: 0,
    plan_name: 'Business',
    users: 30,
    storage: 20,
    storage_limit: 50,
    extra_storage: 20,
    storage_overage_price: 0.4,
    extra_storage_monthly: 8,
    extra_storage_annual: 81.6,
    base_monthly: 219,
    base_annual: 2233.8,
    monthly_total: 227,
    annual_total: 2315.4,
    annual_saving: 408.6,
    annual_saving_percentage: 15,
    effective_monthly_annual: 192.95,
    billing_cycle: 'monthly',
    total: 227,
    currency: 'EUR'
  })
})

t.test('price ties go to the lower sequence; without paid plans nothing is recommended', async (t) => {
  const { app, recommend } = await setup(t)
  const clone = (code: string, sequence: number) => sql(app, `INSERT INTO plans (code, name, description, active, is_trial, trial_days, currency, base_price_monthly,
      included_users, extra_user_price_monthly, storage_limit_gb, storage_overage_price, max_users, max_instances, max_workers, annual_discount_bps, features, sequence,
      created_at, updated_at)
    SELECT $1, 'Clone', description, true, false, 0, currency, base_price_monthly, included_users, extra_user_price_monthly, storage_limit_gb, storage_overage_price,
      max_users, max_instances, max_workers, annual_discount_bps, features, $2, now(), now() FROM plans WHERE code = 'business'`, [code, sequence])
  await clone('clone-after', 35)
  t.equal((await recommend('?users=30')).body.recommended_plan.code, 'business', 'same price, later in the catalog: not chosen')
  await clone('clone-before', 25)
  t.equal((await recommend('?users=30')).body.recommended_plan.code, 'clone-before', 'same price, earlier in the catalog: chosen')

  await sql(app, 'UPDATE plans SET active = false WHERE NOT is_trial')
  const { status, body } = await recommend('?users=3')
  t.equal(status, 200)
  t.equal(body.recommended_plan, null)
  t.equal(body.pricing, null)
  t.equal(body.trial.plan.code, 'trial', 'the trial is still offered')
})

t.test('configuration_id: false until the company stores a configuration, then its id; never another company\'s', async (t) => {
  const { app, admin, recommend } = await setup(t)
  t.equal((await recommend()).body.configuration_id, false)
  const other = await signup(app)
  const [plan] = await sql(app, "SELECT id FROM plans WHERE code = 'starter'")
  const store = async (tenantId: string) => (await sql(app, `INSERT INTO plan_configurations (tenant_id, plan_id, users, storage, workers, instances, billing_cycle, created_at, updated_at)
    VALUES ($1, $2, 5, 0, 1, 1, 'monthly', now(), now()) RETURNING id`, [tenantId, plan?.id]))[0]?.id
  const othersId = await store(other.user.tenant_id)
  t.equal((await recommend()).body.configuration_id, false, 'another company\'s configuration is not seen')
  t.equal((await recommend('', other.token)).body.configuration_id, othersId)
  const id = await store(admin.user.tenant_id)
  t.type(id, 'number')
  t.equal((await recommend()).body.configuration_id, id)
})

t.test('the trial and the demo are available until the company\'s subscription has trial_started_at', async (t) => {
  const { app, admin, recommend } = await setup(t)
  await sql(app, 'UPDATE subscriptions SET trial_started_at = NULL WHERE tenant_id = $1', [admin.user.tenant_id])
  const before = (await recommend('?users=2&storage=3')).body
  t.equal(before.trial.available, true)
  t.equal(before.demo.available, true)
  t.equal(before.trial.plan.code, 'trial')
  t.same(before.demo.plan, before.trial.plan)
  const catalog = (await app.inject({ method: 'GET', url: '/api/plans' })).json().plans
  t.same(before.trial.plan, catalog[0], 'the catalog\'s trial plan')
  t.match(before.trial.pricing, { plan_id: before.trial.plan.id, users: 2, storage: 3, total: 0, monthly_total: 0, annual_total: 0, annual_saving_percentage: 0 })
  t.same(Object.keys(before.trial.pricing).sort(), PRICING_FIELDS)

  const [trial] = await sql(app, "SELECT id FROM plans WHERE code = 'trial'")
  await sql(app, `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount,
      trial_started_at, trial_ends_at, created_at, updated_at)
    VALUES (gen_random_uuid(), $1, $2, 'trialing', 'monthly', 3, 0, 1, 1, 'EUR', 0, now(), now() + interval '14 days', now(), now())
    ON CONFLICT (tenant_id) DO UPDATE SET trial_started_at = now()`, [admin.user.tenant_id, trial?.id])
  const after = (await recommend()).body
  t.equal(after.trial.available, false, 'the one trial is spent')
  t.equal(after.demo.available, false)
  t.equal(after.trial.plan.code, 'trial', 'the plan is still described')

  await sql(app, 'UPDATE subscriptions SET status = $2 WHERE tenant_id = $1', [admin.user.tenant_id, 'expired'])
  t.equal((await recommend()).body.trial.available, false, 'still spent after the trial ends')

  const other = await signup(app)
  await sql(app, 'UPDATE subscriptions SET trial_started_at = NULL WHERE tenant_id = $1', [other.user.tenant_id])
  t.equal((await recommend('', other.token)).body.trial.available, true, 'another company\'s trial is its own')

  await sql(app, 'UPDATE plans SET active = false WHERE is_trial')
  const none = (await recommend('', other.token)).body
  t.same(none.trial, { available: false, plan: null, pricing: null }, 'no trial plan on offer')
  t.same(none.demo, { available: false, plan: null })
})
