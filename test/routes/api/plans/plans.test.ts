import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { PLAN_CATALOG, seedPlans } from '../../../../plugins/app/plans/catalog.ts'
import { build } from '../../../support/build.ts'

const PLAN_FIELDS = [
  'annual_discount_percentage', 'base_price_monthly', 'code', 'currency', 'description', 'extra_user_price_monthly', 'features', 'id',
  'included_users', 'is_trial', 'max_instances', 'max_users', 'max_workers', 'name', 'staging_counts_in_limit', 'storage_limit', 'storage_overage_price', 'trial_days'
]

async function seededApp (t: Parameters<typeof build>[0]) {
  const built = await build(t)
  await seedPlans(built.orm.em.fork())
  return built
}

async function get (app: FastifyInstance, url: string, query: Record<string, string> = {}) {
  const response = await app.inject({ method: 'GET', url, query })
  return { status: response.statusCode, body: response.json() }
}

const planId = async (app: FastifyInstance, code: string): Promise<number> => {
  const [row] = await app.sql<{ id: number }>({ text: 'SELECT id FROM plans WHERE code = $1', values: [code] })
  if (row === undefined) throw new Error(`no plan ${code}`)
  return row.id
}

t.test('GET /api/plans: public, the active catalog in sequence order, money in major units', async (t) => {
  const { app } = await seededApp(t)
  const { status, body } = await get(app, '/api/plans')
  t.equal(status, 200, 'no token needed')
  t.equal(body.success, true)
  const expected = [...PLAN_CATALOG].filter((p) => p.active).sort((a, b) => a.sequence - b.sequence)
  t.same(body.plans.map((p: { code: string }) => p.code), expected.map((p) => p.code))
  t.same(body.plans.map((p: { code: string }) => p.code), ['trial', 'starter', 'business', 'enterprise'])
  for (const plan of body.plans) t.same(Object.keys(plan).sort(), PLAN_FIELDS, `${plan.code}: exactly the documented fields`)

  const business = body.plans.find((p: { code: string }) => p.code === 'business')
  t.same({ ...business, id: undefined, description: undefined, features: undefined }, {
    id: undefined,
    code: 'business',
    name: 'Business',
    description: undefined,
    is_trial: false,
    trial_days: 0,
    currency: 'EUR',
    base_price_monthly: 79,
    included_users: 10,
    extra_user_price_monthly: 7,
    storage_limit: 50,
    storage_overage_price: 0.4,
    max_users: 50,
    max_instances: 3,
    max_workers: 6,
    staging_counts_in_limit: true,
    annual_discount_percentage: 15,
    features: undefined
  })
  t.ok(business.features.length >= 3 && business.features.every((f: unknown) => typeof f === 'string'))
  const trial = body.plans[0]
  t.match(trial, { code: 'trial', is_trial: true, trial_days: 14, base_price_monthly: 0, extra_user_price_monthly: 0, storage_overage_price: 0 })
})

t.test('GET /api/plans leaves out retired plans and follows sequence, not insertion order', async (t) => {
  const { app } = await seededApp(t)
  await app.sql({ text: "UPDATE plans SET active = false WHERE code = 'starter'", values: [] })
  await app.sql({ text: "UPDATE plans SET sequence = 5 WHERE code = 'enterprise'", values: [] })
  const { body } = await get(app, '/api/plans')
  t.same(body.plans.map((p: { code: string }) => p.code), ['enterprise', 'trial', 'business'])
})

t.test('GET /api/demo/plan: the trial plan by default, any active plan by id', async (t) => {
  const { app } = await seededApp(t)
  const byDefault = await get(app, '/api/demo/plan')
  t.equal(byDefault.status, 200, 'public')
  t.equal(byDefault.body.success, true)
  t.equal(byDefault.body.plan.code, 'trial')
  t.same(Object.keys(byDefault.body.plan).sort(), PLAN_FIELDS)

  const catalog = (await get(app, '/api/plans')).body.plans
  t.same(byDefault.body.plan, catalog[0], 'the same object as in the catalog')
  const business = await get(app, '/api/demo/plan', { plan_id: String(await planId(app, 'business')) })
  t.equal(business.status, 200)
  t.same(business.body.plan, catalog.find((p: { code: string }) => p.code === 'business'))
})

t.test('GET /api/demo/plan: unknown or retired id is a 404 PLAN_NOT_FOUND, anything but a positive integer a 400', async (t) => {
  const { app } = await seededApp(t)
  for (const id of ['999999', '2147483647']) {
    const { status, body } = await get(app, '/api/demo/plan', { plan_id: id })
    t.equal(status, 404, `plan_id=${id}`)
    t.equal(body.success, false)
    t.equal(body.error.code, 'PLAN_NOT_FOUND', `plan_id=${id}`)
    t.type(body.request_id, 'string')
  }

  const starter = await planId(app, 'starter')
  await app.sql({ text: 'UPDATE plans SET active = false WHERE id = $1', values: [starter] })
  const retired = await get(app, '/api/demo/plan', { plan_id: String(starter) })
  t.equal(retired.status, 404, 'inactive plan')
  t.equal(retired.body.error.code, 'PLAN_NOT_FOUND')

  for (const id of ['abc', '1.5', 'NaN', 'Infinity', '-Infinity', '1e400', '0', '-3', '2147483648', '99999999999']) {
    const { status, body } = await get(app, '/api/demo/plan', { plan_id: id })
    t.equal(status, 400, `plan_id=${id}`)
    t.equal(body.error.code, 'VALIDATION_FAILED', `plan_id=${id}`)
    t.same(body.error.details.fields.map((f: { field: string }) => f.field), ['plan_id'], `plan_id=${id}: names the field`)
  }
})

t.test('GET /api/demo/plan without an active trial plan is a 404', async (t) => {
  const { app } = await seededApp(t)
  await app.sql({ text: 'UPDATE plans SET active = false WHERE is_trial', values: [] })
  const { status, body } = await get(app, '/api/demo/plan')
  t.equal(status, 404)
  t.equal(body.error.code, 'PLAN_NOT_FOUND')
})

t.test('the plans service answers other rooms', async (t) => {
  const { app } = await seededApp(t)
  const business = await planId(app, 'business')
  t.equal((await app.plans.findActive(business))?.code, 'business')
  t.equal((await app.plans.findActive(987654)), null)
  t.equal((await app.plans.findTrial())?.code, 'trial')
  t.match(await app.plans.getActive(business), { code: 'business', basePriceMonthly: 7900, currency: 'EUR', features: Array })
  await t.rejects(app.plans.getActive(987654), { code: 'PLAN_NOT_FOUND', statusCode: 404 })
  t.same((await app.plans.list()).map((p) => p.code), ['trial', 'starter', 'business', 'enterprise'])
})
