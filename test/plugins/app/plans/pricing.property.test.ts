import fc from 'fast-check'
import t from 'tap'
import { quote, toPricingView, type PriceRequest } from '../../../../plugins/app/plans/pricing.ts'
import { MAX_STORAGE_GB, MAX_USERS } from '../../../../plugins/app/plans/recommendation-request.ts'
import { arbitraryPlan, pricingMatchesPlan, pricingViolations } from './pricing-invariants.ts'

const request: fc.Arbitrary<PriceRequest> = fc.record({
  users: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: MAX_USERS })),
  storage: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: MAX_STORAGE_GB })),
  billingCycle: fc.constantFrom('monthly', 'yearly')
})

t.test('for any plan and request, quote + toPricingView keep every pricing invariant', async (t) => {
  fc.assert(fc.property(arbitraryPlan(), request, (plan, req) => {
    const view = toPricingView(quote(plan, req))
    const problems = [...pricingViolations(view), ...pricingMatchesPlan(view, plan, req)]
    if (problems.length > 0) throw new Error(problems.join('\n'))
  }), { numRuns: 5000 })
  t.pass('5000 random plans and requests')
})

t.test('the quote is integral in minor units and agrees with its view', async (t) => {
  fc.assert(fc.property(arbitraryPlan(), request, (plan, req) => {
    const q = quote(plan, req)
    const amounts = [q.baseMonthly, q.baseAnnual, q.extraStorageMonthly, q.extraStorageAnnual, q.monthlyTotal, q.annualTotal, q.annualSaving, q.effectiveMonthlyAnnual, q.total]
    return amounts.every((amount) => Number.isSafeInteger(amount) && amount >= 0) && q.annualSavingBps >= 0 && q.annualSavingBps <= 10_000 &&
      q.billingCycle === req.billingCycle && q.planId === plan.id
  }), { numRuns: 3000 })
  t.pass()
})

t.test('the same request never costs less on a plan with a smaller discount, and yearly never costs more than 12 months', async (t) => {
  fc.assert(fc.property(arbitraryPlan(), request, fc.integer({ min: 0, max: 10_000 }), (plan, req, otherDiscount) => {
    const a = quote(plan, req)
    const b = quote({ ...plan, annualDiscountBps: otherDiscount }, req)
    const [low, high] = plan.annualDiscountBps <= otherDiscount ? [a, b] : [b, a]
    return low.annualTotal >= high.annualTotal && a.annualTotal <= 12 * a.monthlyTotal && a.monthlyTotal === b.monthlyTotal
  }), { numRuns: 2000 })
  t.pass()
})

t.test('worked example: Business, 12 users, 20 GB extra, yearly', async (t) => {
  const business = {
    id: 3, code: 'business', name: 'Business', description: '', active: true, isTrial: false, trialDays: 0, currency: 'EUR',
    basePriceMonthly: 7900, includedUsers: 10, extraUserPriceMonthly: 700, storageLimitGb: 50, storageOveragePrice: 40,
    maxUsers: 50, maxInstances: 3, maxWorkers: 6, annualDiscountBps: 1500, features: [], sequence: 30, createdAt: new Date(0), updatedAt: new Date(0)
  }
  t.same(toPricingView(quote(business, { users: 12, storage: 20, billingCycle: 'yearly' })), {
    plan_id: 3,
    plan_name: 'Business',
    users: 12,
    storage: 20,
    storage_limit: 50,
    extra_storage: 20,
    storage_overage_price: 0.4,
    extra_storage_monthly: 8,
    extra_storage_annual: 81.6,
    base_monthly: 93,
    base_annual: 948.6,
    monthly_total: 101,
    annual_total: 1030.2,
    annual_saving: 181.8,
    annual_saving_percentage: 15,
    effective_monthly_annual: 85.85,
    billing_cycle: 'yearly',
    total: 1030.2,
    currency: 'EUR'
  })
  const kwd = toPricingView(quote({ ...business, currency: 'KWD', basePriceMonthly: 12_345, extraUserPriceMonthly: 1_001, annualDiscountBps: 1234 }, { users: 11, storage: 0, billingCycle: 'monthly' }))
  t.match(kwd, { base_monthly: 13.346, monthly_total: 13.346, total: 13.346, currency: 'KWD' })
  t.same(pricingViolations(kwd), [])
  const jpy = toPricingView(quote({ ...business, currency: 'JPY', basePriceMonthly: 999, extraUserPriceMonthly: 0, storageOveragePrice: 7, annualDiscountBps: 333 }, { users: 1, storage: 1, billingCycle: 'yearly' }))
  t.same(pricingViolations(jpy), [])
  t.ok(Number.isInteger(jpy.annual_total) && Number.isInteger(jpy.effective_monthly_annual), 'yen have no decimals')
})
