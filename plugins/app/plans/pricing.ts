import { divideRoundHalfUp, toMajor } from '../../../lib/money.ts'
import type { Plan } from './plan.entity.ts'

export type BillingCycle = 'monthly' | 'yearly'

/** The fields of a plan that its price depends on. */
export type PricedPlan = Pick<Plan, 'id' | 'name' | 'currency' | 'basePriceMonthly' | 'includedUsers' | 'extraUserPriceMonthly' | 'storageLimitGb' | 'storageOveragePrice' | 'annualDiscountBps'>

/** Already normalised: users an integer >= 1; storage whole GB >= 0 beyond the plan's included storage. */
export interface PriceRequest {
  users: number
  storage: number
  billingCycle: BillingCycle
}

/** A price, every amount in integer minor units of `currency`. */
export interface Quote {
  planId: number
  planName: string
  currency: string
  users: number
  storage: number
  storageLimit: number
  extraStorage: number
  storageOveragePrice: number
  extraStorageMonthly: number
  extraStorageAnnual: number
  baseMonthly: number
  baseAnnual: number
  monthlyTotal: number
  annualTotal: number
  annualSaving: number
  /** annual_saving as a share of 12 x monthly_total, in basis points */
  annualSavingBps: number
  effectiveMonthlyAnnual: number
  billingCycle: BillingCycle
  total: number
}

const BPS = 10_000

/** A year of a monthly amount with the plan's annual discount, rounded half up to the minor unit. */
function annualOf (monthly: number, discountBps: number): number {
  return divideRoundHalfUp(BigInt(monthly) * 12n * BigInt(BPS - discountBps), BPS)
}

/**
 * The price of a plan for a request. The rules (docs/billing.md, "Plans and pricing"):
 * - base_monthly = base price + (users beyond the included users) x price per extra user;
 * - extra_storage = the requested GB beyond the included storage, each at the overage price;
 * - each annual amount = 12 x its monthly amount less the annual discount, rounded to the minor unit;
 * - the totals are sums of the parts, so monthly_total = base_monthly + extra_storage_monthly and
 *   annual_total = base_annual + extra_storage_annual hold exactly.
 */
export function quote (plan: PricedPlan, request: PriceRequest): Quote {
  const discount = Math.min(Math.max(plan.annualDiscountBps, 0), BPS)
  const extraUsers = Math.max(0, request.users - plan.includedUsers)
  const baseMonthly = plan.basePriceMonthly + extraUsers * plan.extraUserPriceMonthly
  const extraStorage = request.storage
  const extraStorageMonthly = extraStorage * plan.storageOveragePrice
  const baseAnnual = annualOf(baseMonthly, discount)
  const extraStorageAnnual = annualOf(extraStorageMonthly, discount)
  const monthlyTotal = baseMonthly + extraStorageMonthly
  const annualTotal = baseAnnual + extraStorageAnnual
  const annualSaving = Math.max(0, 12 * monthlyTotal - annualTotal)
  return {
    planId: plan.id,
    planName: plan.name,
    currency: plan.currency,
    users: request.users,
    storage: request.storage,
    storageLimit: plan.storageLimitGb,
    extraStorage,
    storageOveragePrice: plan.storageOveragePrice,
    extraStorageMonthly,
    extraStorageAnnual,
    baseMonthly,
    baseAnnual,
    monthlyTotal,
    annualTotal,
    annualSaving,
    annualSavingBps: monthlyTotal === 0 ? 0 : divideRoundHalfUp(BigInt(annualSaving) * BigInt(BPS), 12 * monthlyTotal),
    effectiveMonthlyAnnual: divideRoundHalfUp(annualTotal, 12),
    billingCycle: request.billingCycle,
    total: request.billingCycle === 'yearly' ? annualTotal : monthlyTotal
  }
}

export interface PricingView {
  plan_id: number
  plan_name: string
  users: number
  storage: number
  storage_limit: number
  extra_storage: number
  storage_overage_price: number
  extra_storage_monthly: number
  extra_storage_annual: number
  base_monthly: number
  base_annual: number
  monthly_total: number
  annual_total: number
  annual_saving: number
  annual_saving_percentage: number
  effective_monthly_annual: number
  billing_cycle: BillingCycle
  total: number
  currency: string
}

/** The public shape: money in major units, rounded to the currency; the percentage to two decimals. */
export function toPricingView (q: Quote): PricingView {
  const money = (minor: number) => toMajor(minor, q.currency)
  return {
    plan_id: q.planId,
    plan_name: q.planName,
    users: q.users,
    storage: q.storage,
    storage_limit: q.storageLimit,
    extra_storage: q.extraStorage,
    storage_overage_price: money(q.storageOveragePrice),
    extra_storage_monthly: money(q.extraStorageMonthly),
    extra_storage_annual: money(q.extraStorageAnnual),
    base_monthly: money(q.baseMonthly),
    base_annual: money(q.baseAnnual),
    monthly_total: money(q.monthlyTotal),
    annual_total: money(q.annualTotal),
    annual_saving: money(q.annualSaving),
    annual_saving_percentage: q.annualSavingBps / 100,
    effective_monthly_annual: money(q.effectiveMonthlyAnnual),
    billing_cycle: q.billingCycle,
    total: money(q.total),
    currency: q.currency
  }
}
