/**
 * The pricing invariants (docs/billing.md, "Plans and pricing"), checked on the public JSON in
 * exact integer minor units, so float noise cannot hide or fake a violation.
 * Shared by the pure property test and the HTTP ones.
 */
import fc from 'fast-check'
import type { PlanRecord } from '../../../../plugins/app/plans/plan.view.ts'
import type { PricingView } from '../../../../plugins/app/plans/pricing.ts'

/** Decimals per ISO 4217, written out so the check does not lean on lib/money.ts. */
export const CURRENCY_DIGITS: Record<string, number> = { JPY: 0, CLP: 0, EUR: 2, USD: 2, GBP: 2, KWD: 3, BHD: 3 }

const MONEY = [
  'storage_overage_price', 'extra_storage_monthly', 'extra_storage_annual', 'base_monthly', 'base_annual', 'monthly_total',
  'annual_total', 'annual_saving', 'effective_monthly_annual', 'total'
] as const

/** The amount in minor units, exactly; null when it has more decimals than the currency allows. */
export function minorOf (amount: number, digits: number): bigint | null {
  if (!Number.isFinite(amount) || Math.abs(amount) >= 1e15) return null
  const fixed = amount.toFixed(digits)
  return Number(fixed) === amount ? BigInt(fixed.replace('.', '')) : null
}

/** Whether `rounded` is numerator / denominator rounded half up (denominator > 0). */
export const isHalfUp = (rounded: bigint, numerator: bigint, denominator: bigint) =>
  denominator * (2n * rounded - 1n) <= 2n * numerator && 2n * numerator < denominator * (2n * rounded + 1n)

export function pricingViolations (view: PricingView): string[] {
  const digits = CURRENCY_DIGITS[view.currency]
  if (digits === undefined) return [`unknown test currency ${view.currency}`]
  const problems: string[] = []
  const m = {} as Record<typeof MONEY[number], bigint>
  for (const field of MONEY) {
    const minor = minorOf(view[field], digits)
    if (minor === null) problems.push(`${field} = ${view[field]} has more than ${digits} decimals`)
    else if (minor < 0n) problems.push(`${field} = ${view[field]} is negative`)
    m[field] = minor ?? 0n
  }
  const check = (ok: boolean, what: string) => { if (!ok) problems.push(`${what}: ${JSON.stringify(view)}`) }
  check(m.monthly_total === m.base_monthly + m.extra_storage_monthly, 'monthly_total = base_monthly + extra_storage_monthly')
  check(m.annual_total === m.base_annual + m.extra_storage_annual, 'annual_total = base_annual + extra_storage_annual')
  check(m.annual_saving === 12n * m.monthly_total - m.annual_total, 'annual_saving = 12 x monthly_total - annual_total')
  check(m.extra_storage_monthly === BigInt(view.extra_storage) * m.storage_overage_price, 'extra_storage_monthly = extra_storage x overage price')
  check(view.extra_storage === view.storage, 'extra_storage is the requested storage')
  check(m.total === (view.billing_cycle === 'yearly' ? m.annual_total : m.monthly_total), 'total is the requested cycle\'s total')
  check(isHalfUp(m.effective_monthly_annual, m.annual_total, 12n), 'effective_monthly_annual = annual_total / 12, rounded')

  const bps = Math.round(view.annual_saving_percentage * 100)
  check(Math.abs(view.annual_saving_percentage * 100 - bps) < 1e-6, 'annual_saving_percentage has at most two decimals')
  check(view.annual_saving_percentage >= 0 && view.annual_saving_percentage <= 100, 'annual_saving_percentage within 0-100')
  check(m.monthly_total === 0n
    ? bps === 0
    : isHalfUp(BigInt(bps), m.annual_saving * 10_000n, 12n * m.monthly_total), 'annual_saving_percentage = round(100 x saving / (12 x monthly_total), 2)')
  for (const field of ['users', 'storage', 'storage_limit', 'extra_storage'] as const) {
    check(Number.isSafeInteger(view[field]) && view[field] >= 0, `${field} is a whole number`)
  }
  return problems
}

/** The quote against the plan's own numbers: base price, extra users and the discount on each annual part. */
export function pricingMatchesPlan (view: PricingView, plan: PlanRecord, request: { users: number, storage: number }): string[] {
  const digits = CURRENCY_DIGITS[plan.currency] ?? 2
  const minor = (field: 'base_monthly' | 'base_annual' | 'extra_storage_annual' | 'storage_overage_price') => minorOf(view[field], digits) ?? -1n
  const baseMonthly = BigInt(plan.basePriceMonthly) + BigInt(Math.max(0, request.users - plan.includedUsers)) * BigInt(plan.extraUserPriceMonthly)
  const keep = BigInt(10_000 - plan.annualDiscountBps)
  const problems: string[] = []
  if (minor('base_monthly') !== baseMonthly) problems.push(`base_monthly ${view.base_monthly} for ${JSON.stringify(plan)}`)
  if (!isHalfUp(minor('base_annual'), 12n * baseMonthly * keep, 10_000n)) problems.push(`base_annual ${view.base_annual}`)
  const storageMonthly = BigInt(request.storage) * BigInt(plan.storageOveragePrice)
  if (!isHalfUp(minor('extra_storage_annual'), 12n * storageMonthly * keep, 10_000n)) problems.push(`extra_storage_annual ${view.extra_storage_annual}`)
  if (minor('storage_overage_price') !== BigInt(plan.storageOveragePrice)) problems.push('storage_overage_price')
  if (view.plan_id !== plan.id || view.plan_name !== plan.name || view.currency !== plan.currency || view.storage_limit !== plan.storageLimitGb) problems.push('plan identity')
  if (view.users !== request.users || view.storage !== request.storage) problems.push('request echo')
  return problems
}

const price = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 10_000_000 }))

/** Any plan the table could hold: random prices, limits, discount 0-100 %, currencies with 0, 2 or 3 decimals. */
export const arbitraryPlan = (isTrial = false): fc.Arbitrary<PlanRecord> => fc.record({
  id: fc.integer({ min: 1, max: 1_000_000 }),
  code: fc.constant(isTrial ? 'random-trial' : 'random-paid'),
  name: fc.string({ minLength: 1, maxLength: 30 }),
  description: fc.constant('A random plan'),
  active: fc.constant(true),
  isTrial: fc.constant(isTrial),
  trialDays: fc.integer({ min: 0, max: 60 }),
  currency: fc.constantFrom(...Object.keys(CURRENCY_DIGITS)),
  basePriceMonthly: price,
  includedUsers: fc.integer({ min: 0, max: 1000 }),
  extraUserPriceMonthly: price,
  storageLimitGb: fc.integer({ min: 0, max: 100_000 }),
  storageOveragePrice: price,
  maxUsers: fc.integer({ min: 1, max: 200_000 }),
  maxInstances: fc.integer({ min: 1, max: 100 }),
  maxWorkers: fc.integer({ min: 1, max: 100 }),
  stagingCountsInLimit: fc.boolean(),
  annualDiscountBps: fc.oneof(fc.constantFrom(0, 10_000), fc.integer({ min: 0, max: 10_000 })),
  features: fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
  sequence: fc.integer({ min: 0, max: 1000 }),
  createdAt: fc.constant(new Date(0)),
  updatedAt: fc.constant(new Date(0))
})
