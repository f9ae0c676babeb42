import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, updatedAt } from '../../../database/columns.ts'

/**
 * What a tenant can buy. Money is in integer minor units of `currency`
 * (cents for EUR, yen for JPY); percentages in basis points (1% = 100).
 * Reference data, the same for every tenant.
 */
const PlanSchema = defineEntity({
  name: 'Plan',
  tableName: 'plans',
  properties: {
    id: p.integer().primary().autoincrement(),
    code: p.string().length(40).unique(),
    name: p.string().length(100),
    description: p.text(),
    active: p.boolean().default(true),
    isTrial: p.boolean().default(false),
    trialDays: p.integer().default(0).check('trial_days >= 0'),
    /** ISO 4217 */
    currency: p.string().length(3),
    basePriceMonthly: p.bigint('number').check('base_price_monthly >= 0'),
    includedUsers: p.integer().check('included_users >= 0'),
    extraUserPriceMonthly: p.bigint('number').check('extra_user_price_monthly >= 0'),
    /** GB included */
    storageLimitGb: p.integer().check('storage_limit_gb >= 0'),
    /** Per GB beyond the included storage, per month */
    storageOveragePrice: p.bigint('number').check('storage_overage_price >= 0'),
    maxUsers: p.integer().check('max_users >= 1'),
    maxInstances: p.integer().check('max_instances >= 0'),
    maxWorkers: p.integer().check('max_workers >= 0'),
    /** Whether staging copies take one of the plan's instance slots (`maxInstances`). */
    stagingCountsInLimit: p.boolean().default(true),
    annualDiscountBps: p.integer().default(0).check('annual_discount_bps >= 0 AND annual_discount_bps <= 10000'),
    features: p.json<string[]>(),
    sequence: p.integer().default(100),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class Plan extends PlanSchema.class {}
PlanSchema.setClass(Plan)
