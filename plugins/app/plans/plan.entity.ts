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
    trialDays: p.integer().default(0),
    /** ISO 4217 */
    currency: p.string().length(3),
    basePriceMonthly: p.bigint('number'),
    includedUsers: p.integer(),
    extraUserPriceMonthly: p.bigint('number'),
    /** GB included */
    storageLimitGb: p.integer(),
    /** Per GB beyond the included storage, per month */
    storageOveragePrice: p.bigint('number'),
    maxUsers: p.integer(),
    maxInstances: p.integer(),
    maxWorkers: p.integer(),
    annualDiscountBps: p.integer().default(0),
    features: p.json<string[]>(),
    sequence: p.integer().default(100),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class Plan extends PlanSchema.class {}
PlanSchema.setClass(Plan)
