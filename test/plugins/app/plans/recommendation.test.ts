import t from 'tap'
import type { PlanRecord } from '../../../../plugins/app/plans/plan.view.ts'
import { buildRecommendation, pickPlan } from '../../../../plugins/app/plans/recommendation.ts'

let nextId = 1
const plan = (code: string, overrides: Partial<PlanRecord> = {}): PlanRecord => ({
  id: nextId++, code, name: code, description: '', active: true, isTrial: false, trialDays: 0, currency: 'EUR',
  basePriceMonthly: 1000, includedUsers: 1, extraUserPriceMonthly: 100, storageLimitGb: 10, storageOveragePrice: 10,
  maxUsers: 10, maxInstances: 1, maxWorkers: 1, stagingCountsInLimit: true, annualDiscountBps: 0, features: [], sequence: nextId * 10,
  createdAt: new Date(0), updatedAt: new Date(0), ...overrides
})
const monthly = (users: number, storage = 0) => ({ users, storage, billingCycle: 'monthly' as const })
const code = (choice: ReturnType<typeof pickPlan>) => choice === null ? null : `${choice.plan.code}${choice.fits ? '' : ' (does not fit)'}`

t.test('the cheapest plan that fits; a cheaper plan that does not fit never wins', async (t) => {
  const small = plan('small', { basePriceMonthly: 500, maxUsers: 5 })
  const large = plan('large', { basePriceMonthly: 2000, maxUsers: 100 })
  t.equal(code(pickPlan([small, large], monthly(5))), 'small')
  t.equal(code(pickPlan([small, large], monthly(6))), 'large')
  t.equal(code(pickPlan([large, small], monthly(5))), 'small', 'whatever the order')
})

t.test('ties go to the plan that comes first (the catalog comes in sequence order)', async (t) => {
  const a = plan('a')
  const b = plan('b')
  t.equal(code(pickPlan([a, b], monthly(3))), 'a')
  t.equal(code(pickPlan([b, a], monthly(3))), 'b')
})

t.test('the billing cycle decides: the annual discount can change the winner', async (t) => {
  const plain = plan('plain', { basePriceMonthly: 1000 })
  const discounted = plan('discounted', { basePriceMonthly: 1050, annualDiscountBps: 1000 })
  t.equal(code(pickPlan([plain, discounted], monthly(1))), 'plain')
  t.equal(code(pickPlan([plain, discounted], { users: 1, storage: 0, billingCycle: 'yearly' })), 'discounted')
})

t.test('when nothing fits: the plan with the most users, then the cheapest; no paid plan: null', async (t) => {
  const big = plan('big', { maxUsers: 50, basePriceMonthly: 9000 })
  const bigCheap = plan('big-cheap', { maxUsers: 50, basePriceMonthly: 8000 })
  const small = plan('small', { maxUsers: 5, basePriceMonthly: 100 })
  t.equal(code(pickPlan([small, big, bigCheap], monthly(51))), 'big-cheap (does not fit)')
  t.equal(pickPlan([plan('trial', { isTrial: true, maxUsers: 1000 })], monthly(1)), null, 'a trial plan is never recommended')
  t.equal(pickPlan([], monthly(1)), null)
})

t.test('the whole answer: trial and demo follow the trial plan and its use', async (t) => {
  const trial = plan('trial', { isTrial: true, trialDays: 14, basePriceMonthly: 0, extraUserPriceMonthly: 0, storageOveragePrice: 0 })
  const paid = plan('paid')
  const fresh = buildRecommendation([trial, paid], { configurationId: null, trialUsed: false }, monthly(2, 3))
  t.match(fresh, {
    configuration_id: false,
    requested: { users: 2, storage: 3, billing_cycle: 'monthly' },
    trial: { available: true, plan: { code: 'trial' }, pricing: { plan_id: trial.id, total: 0 } },
    demo: { available: true, plan: { code: 'trial' } },
    recommended_plan: { code: 'paid', fits: true },
    pricing: { plan_id: paid.id, base_monthly: 11, extra_storage_monthly: 0.3, total: 11.3 }
  })
  const used = buildRecommendation([trial, paid], { configurationId: 7, trialUsed: true }, monthly(1))
  t.match(used, { configuration_id: 7, trial: { available: false, plan: { code: 'trial' } }, demo: { available: false } })
  const none = buildRecommendation([paid], { configurationId: null, trialUsed: false }, monthly(1))
  t.same([none.trial, none.demo], [{ available: false, plan: null, pricing: null }, { available: false, plan: null }])
})
