import { toMajor } from '../../../lib/money.ts'

/**
 * A plan as read by the plans service: a plain object with the entity's
 * fields (so `quote()` takes it), not a managed entity. Money in minor units.
 */
export interface PlanRecord {
  id: number
  code: string
  name: string
  description: string
  active: boolean
  isTrial: boolean
  trialDays: number
  currency: string
  basePriceMonthly: number
  includedUsers: number
  extraUserPriceMonthly: number
  storageLimitGb: number
  storageOveragePrice: number
  maxUsers: number
  maxInstances: number
  maxWorkers: number
  stagingCountsInLimit: boolean
  annualDiscountBps: number
  features: string[]
  sequence: number
  createdAt: Date
  updatedAt: Date
}

/** The public shape: money in major units of `currency`. */
export interface PlanView {
  id: number
  code: string
  name: string
  description: string
  is_trial: boolean
  trial_days: number
  currency: string
  base_price_monthly: number
  included_users: number
  extra_user_price_monthly: number
  storage_limit: number
  storage_overage_price: number
  max_users: number
  max_instances: number
  max_workers: number
  staging_counts_in_limit: boolean
  annual_discount_percentage: number
  features: string[]
}

export function toPlanView (plan: PlanRecord): PlanView {
  return {
    id: plan.id,
    code: plan.code,
    name: plan.name,
    description: plan.description,
    is_trial: plan.isTrial,
    trial_days: plan.trialDays,
    currency: plan.currency,
    base_price_monthly: toMajor(plan.basePriceMonthly, plan.currency),
    included_users: plan.includedUsers,
    extra_user_price_monthly: toMajor(plan.extraUserPriceMonthly, plan.currency),
    storage_limit: plan.storageLimitGb,
    storage_overage_price: toMajor(plan.storageOveragePrice, plan.currency),
    max_users: plan.maxUsers,
    max_instances: plan.maxInstances,
    max_workers: plan.maxWorkers,
    staging_counts_in_limit: plan.stagingCountsInLimit,
    annual_discount_percentage: plan.annualDiscountBps / 100,
    features: plan.features
  }
}
