import fc from 'fast-check'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { seedPlans } from '../../../../plugins/app/plans/catalog.ts'
import type { PlanRecord } from '../../../../plugins/app/plans/plan.view.ts'
import { quote } from '../../../../plugins/app/plans/pricing.ts'
import { normaliseRecommendationQuery } from '../../../../plugins/app/plans/recommendation-request.ts'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { arbitraryPlan, pricingMatchesPlan, pricingViolations } from '../../../plugins/app/plans/pricing-invariants.ts'

/** What a client might put in users or storage: numbers in every notation, and garbage. */
const quantityText = fc.oneof(
  fc.integer({ min: -20, max: 700 }).map(String),
  fc.integer({ min: -200_000, max: 200_000 }).map(String),
  fc.double({ min: -1000, max: 1000, noNaN: true }).map(String),
  fc.double({ noNaN: true }).map((n) => n.toExponential()),
  fc.constantFrom('', ' ', 'abc', 'NaN', 'Infinity', '-Infinity', '1e12', '1e400', '0x1F', '1,5', '2.7', '1.2', ' 7 ', '+3', '.5', '5.', '1e-3', '-0'),
  fc.string({ maxLength: 10 })
)
const cycleValue = fc.oneof(fc.constantFrom('monthly', 'yearly', 'weekly', 'YEARLY', ''), fc.string({ maxLength: 12 }), fc.array(fc.constantFrom('yearly', 'monthly', 'x'), { minLength: 2, maxLength: 3 }))
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const rawQuery = fc.record({ users: maybe(quantityText), storage: maybe(quantityText), billing_cycle: maybe(cycleValue) })

function queryString (query: { users?: string | undefined, storage?: string | undefined, billing_cycle?: string | string[] | undefined }): string {
  const parts = Object.entries(query).flatMap(([key, value]) =>
    value === undefined ? [] : [value].flat().map((item) => `${key}=${encodeURIComponent(item)}`))
  return parts.length === 0 ? '' : `?${parts.join('&')}`
}

/** The expected choice, computed here: fitting paid plans sorted by (total, sequence); else the most users. */
function expectedPlan (plans: PlanRecord[], request: Parameters<typeof quote>[1]): { code: string, fits: boolean } | null {
  const paid = plans.filter((p) => !p.isTrial).map((plan) => ({ plan, total: quote(plan, request).total }))
  const fitting = paid.filter(({ plan }) => request.users <= plan.maxUsers).sort((a, b) => a.total - b.total || a.plan.sequence - b.plan.sequence || a.plan.id - b.plan.id)
  if (fitting[0] !== undefined) return { code: fitting[0].plan.code, fits: true }
  const biggest = paid.sort((a, b) => b.plan.maxUsers - a.plan.maxUsers || a.total - b.total || a.plan.sequence - b.plan.sequence || a.plan.id - b.plan.id)[0]
  return biggest === undefined ? null : { code: biggest.plan.code, fits: false }
}

async function recommend (app: FastifyInstance, token: string, query: string) {
  const response = await app.inject({ method: 'GET', url: `/api/subscription/recommendation${query}`, headers: bearer(token) })
  return { status: response.statusCode, body: response.json() }
}

t.test('any query string against the catalog: 200 with the normalised request and a consistent, cheapest price, or a 400 naming the field', async (t) => {
  const { app, orm } = await build(t)
  await seedPlans(orm.em.fork())
  const { token } = await signup(app)
  const plans = await app.plans.list()

  await fc.assert(fc.asyncProperty(rawQuery, async (raw) => {
    const query = queryString(raw)
    const { status, body } = await recommend(app, token, query)
    const expected = normaliseRecommendationQuery(raw)
    if (!expected.ok) {
      const fields = body.error?.details?.fields?.map((f: { field: string }) => f.field)
      if (status !== 400 || body.error.code !== 'VALIDATION_FAILED' || JSON.stringify(fields) !== JSON.stringify(expected.errors.map((e) => e.field))) {
        throw new Error(`${query}: expected a 400 naming ${expected.errors.map((e) => e.field)}, got ${status} ${JSON.stringify(body)}`)
      }
      return
    }
    const { users, storage, billingCycle } = expected.request
    if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body)}`)
    if (JSON.stringify(body.requested) !== JSON.stringify({ users, storage, billing_cycle: billingCycle })) throw new Error(`${query}: requested ${JSON.stringify(body.requested)}`)
    const choice = expectedPlan(plans, expected.request)
    if (body.recommended_plan?.code !== choice?.code || body.recommended_plan?.fits !== choice?.fits) {
      throw new Error(`${query}: recommended ${body.recommended_plan?.code}/${body.recommended_plan?.fits}, expected ${JSON.stringify(choice)}`)
    }
    const plan = plans.find((p) => p.code === choice?.code)!
    const problems = [
      ...pricingViolations(body.pricing), ...pricingMatchesPlan(body.pricing, plan, expected.request),
      ...pricingViolations(body.trial.pricing)
    ]
    if (body.pricing.billing_cycle !== billingCycle) problems.push('billing_cycle')
    if (problems.length > 0) throw new Error(`${query}: ${problems.join('\n')}`)
  }), { numRuns: 400 })
  t.pass('400 random query strings')
})

const planColumns = (plan: PlanRecord) => [
  plan.name, plan.currency, plan.basePriceMonthly, plan.includedUsers, plan.extraUserPriceMonthly, plan.storageLimitGb,
  plan.storageOveragePrice, plan.maxUsers, plan.annualDiscountBps
]

t.test('random plans in any currency, priced through the route, keep every invariant', async (t) => {
  const { app, orm } = await build(t)
  await seedPlans(orm.em.fork())
  const { token } = await signup(app)
  await app.sql({ text: 'UPDATE plans SET active = false', values: [] })
  const ids: Record<string, number> = {}
  for (const [code, isTrial] of [['random-paid', false], ['random-trial', true]] as const) {
    const [row] = await app.sql<{ id: number }>({
      text: `INSERT INTO plans (code, name, description, is_trial, currency, base_price_monthly, included_users, extra_user_price_monthly, storage_limit_gb,
        storage_overage_price, max_users, max_instances, max_workers, features, created_at, updated_at)
        VALUES ($1, $1, '', $2, 'EUR', 0, 1, 0, 0, 0, 1, 1, 1, '[]', now(), now()) RETURNING id`,
      values: [code, isTrial]
    })
    ids[code] = row!.id
  }
  const update = (plan: PlanRecord) => app.sql({
    text: `UPDATE plans SET name = $2, currency = $3, base_price_monthly = $4, included_users = $5, extra_user_price_monthly = $6,
      storage_limit_gb = $7, storage_overage_price = $8, max_users = $9, annual_discount_bps = $10 WHERE id = $1`,
    values: [plan.id, ...planColumns(plan)]
  })
  const request = fc.record({ users: fc.integer({ min: -5, max: 100_000 }), storage: fc.integer({ min: -5, max: 100_000 }), cycle: fc.constantFrom('monthly', 'yearly') })

  await fc.assert(fc.asyncProperty(arbitraryPlan(false), arbitraryPlan(true), request, async (paidPlan, trialPlan, req) => {
    const paid = { ...paidPlan, id: ids['random-paid']! }
    const trial = { ...trialPlan, id: ids['random-trial']! }
    await Promise.all([update(paid), update(trial)])
    const query = `?users=${req.users}&storage=${req.storage}&billing_cycle=${req.cycle}`
    const { status, body } = await recommend(app, token, query)
    if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body)}`)
    const normalised = { users: Math.max(1, req.users), storage: Math.max(0, req.storage) }
    const problems = [
      ...pricingViolations(body.pricing), ...pricingMatchesPlan(body.pricing, paid, normalised),
      ...pricingViolations(body.trial.pricing), ...pricingMatchesPlan(body.trial.pricing, trial, normalised)
    ]
    if (body.recommended_plan.fits !== (normalised.users <= paid.maxUsers)) problems.push('fits')
    if (body.pricing.total !== (req.cycle === 'yearly' ? body.pricing.annual_total : body.pricing.monthly_total)) problems.push('total')
    if (problems.length > 0) throw new Error(`${query} ${JSON.stringify(paid)}: ${problems.join('\n')}`)
  }), { numRuns: 250 })
  t.pass('250 random plans and requests')
})
