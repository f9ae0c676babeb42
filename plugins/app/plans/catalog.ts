import type { EntityManager } from '@mikro-orm/postgresql'
import type { PlanRecord } from './plan.view.ts'

/** One plan as the catalog defines it: a plan record before it has an id. Money in integer minor units (EUR cents). */
export type PlanCatalogEntry = Omit<PlanRecord, 'id' | 'createdAt' | 'updatedAt'>

export const PLAN_CATALOG: readonly PlanCatalogEntry[] = [
  {
    code: 'trial',
    name: 'Free trial',
    description: 'Try the full ERP for 14 days with a small team, free of charge and without a payment method.',
    active: true,
    isTrial: true,
    trialDays: 14,
    currency: 'EUR',
    basePriceMonthly: 0,
    includedUsers: 3,
    extraUserPriceMonthly: 0,
    storageLimitGb: 5,
    storageOveragePrice: 0,
    maxUsers: 3,
    maxInstances: 1,
    maxWorkers: 1,
    stagingCountsInLimit: true,
    annualDiscountBps: 0,
    features: ['All ERP apps', '1 instance', 'Up to 3 users', '5 GB storage', 'Community support'],
    sequence: 10
  },
  {
    code: 'starter',
    name: 'Starter',
    description: 'For small companies getting started: one production instance with daily backups.',
    active: true,
    isTrial: false,
    trialDays: 0,
    currency: 'EUR',
    basePriceMonthly: 29_00,
    includedUsers: 3,
    extraUserPriceMonthly: 9_00,
    storageLimitGb: 10,
    storageOveragePrice: 50,
    maxUsers: 10,
    maxInstances: 1,
    maxWorkers: 2,
    stagingCountsInLimit: true,
    annualDiscountBps: 10_00,
    features: ['All ERP apps', '1 instance', '3 users included', '10 GB storage', 'Daily backups, kept 7 days', 'E-mail support'],
    sequence: 20
  },
  {
    code: 'business',
    name: 'Business',
    description: 'For growing teams: staging and production instances, custom domains and priority support.',
    active: true,
    isTrial: false,
    trialDays: 0,
    currency: 'EUR',
    basePriceMonthly: 79_00,
    includedUsers: 10,
    extraUserPriceMonthly: 7_00,
    storageLimitGb: 50,
    storageOveragePrice: 40,
    maxUsers: 50,
    maxInstances: 3,
    maxWorkers: 6,
    stagingCountsInLimit: true,
    annualDiscountBps: 15_00,
    features: ['All ERP apps', 'Up to 3 instances (staging included)', '10 users included', '50 GB storage', 'Custom domains', 'Hourly backups, kept 30 days', 'Priority support'],
    sequence: 30
  },
  {
    code: 'enterprise',
    name: 'Enterprise',
    description: 'For large organisations: many instances and workers, single sign-on and a dedicated account manager.',
    active: true,
    isTrial: false,
    trialDays: 0,
    currency: 'EUR',
    basePriceMonthly: 199_00,
    includedUsers: 25,
    extraUserPriceMonthly: 5_00,
    storageLimitGb: 200,
    storageOveragePrice: 30,
    maxUsers: 500,
    maxInstances: 10,
    maxWorkers: 20,
    stagingCountsInLimit: false,
    annualDiscountBps: 20_00,
    features: ['All ERP apps', 'Up to 10 instances', '25 users included', '200 GB storage', 'Custom domains', 'Single sign-on (SAML, OIDC)', 'Point-in-time recovery', '99.9% uptime SLA', 'Dedicated account manager'],
    sequence: 40
  }
]

const COLUMNS = [
  'code', 'name', 'description', 'active', 'is_trial', 'trial_days', 'currency', 'base_price_monthly', 'included_users',
  'extra_user_price_monthly', 'storage_limit_gb', 'storage_overage_price', 'max_users', 'max_instances', 'max_workers',
  'staging_counts_in_limit', 'annual_discount_bps', 'features', 'sequence'
] as const
const UPDATED = COLUMNS.filter((column) => column !== 'code')

const valuesOf = (plan: PlanCatalogEntry) => [
  plan.code, plan.name, plan.description, plan.active, plan.isTrial, plan.trialDays, plan.currency, plan.basePriceMonthly, plan.includedUsers,
  plan.extraUserPriceMonthly, plan.storageLimitGb, plan.storageOveragePrice, plan.maxUsers, plan.maxInstances, plan.maxWorkers,
  plan.stagingCountsInLimit, plan.annualDiscountBps, JSON.stringify(plan.features), plan.sequence
]

const ROW = `(${COLUMNS.map((column) => column === 'features' ? 'cast(? as jsonb)' : '?').join(', ')}, now(), now())`

/**
 * Upserts the catalog by code in one statement, like the module catalog: running
 * it again updates what changed (the catalog in code is the source of truth,
 * `active` included: retire a plan by setting it false here), never duplicates
 * a plan and keeps ids, which subscriptions reference. Replicas seeding at once
 * are serialised by the unique index on code, always in the same row order, so
 * they cannot deadlock. Unchanged rows are not rewritten; plans no longer in the
 * catalog are left alone. Returns how many rows were inserted or changed.
 */
export async function seedPlans (em: EntityManager): Promise<{ plans: number, changed: number }> {
  const rows = await em.execute<Array<{ code: string }>>(`
    INSERT INTO plans (${COLUMNS.join(', ')}, created_at, updated_at)
    VALUES ${PLAN_CATALOG.map(() => ROW).join(', ')}
    ON CONFLICT (code) DO UPDATE
      SET ${UPDATED.map((column) => `${column} = excluded.${column}`).join(', ')}, updated_at = now()
      WHERE (${UPDATED.map((column) => `plans.${column}`).join(', ')})
        IS DISTINCT FROM (${UPDATED.map((column) => `excluded.${column}`).join(', ')})
    RETURNING code`, PLAN_CATALOG.flatMap(valuesOf))
  return { plans: PLAN_CATALOG.length, changed: rows.length }
}
