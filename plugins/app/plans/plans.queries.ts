import type { Statement } from '../../../lib/sql.ts'
import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { PlanRecord } from './plan.view.ts'

/**
 * The version of the active catalog: each active row's id and xmin (the id of
 * the transaction that wrote that row version; every insert or update gives a
 * row a new one). It changes whenever anything in the active catalog does, so
 * a copy read earlier can be reused exactly while it stays the same, and costs
 * far less to compute than a hash of the rows.
 */
const CATALOG_VERSION = `(SELECT coalesce(string_agg(v.id || ':' || v.xmin, ',' ORDER BY v.id), '') FROM plans v WHERE v.active)`

/** The active catalog, in display order, with its version. Plans are reference data: not tenant-owned. */
export const ACTIVE_PLANS: Statement = {
  name: 'plans-active',
  text: `
SELECT id, code, name, description, active, is_trial, trial_days, currency, base_price_monthly::float8 AS base_price_monthly, included_users,
  extra_user_price_monthly::float8 AS extra_user_price_monthly, storage_limit_gb, storage_overage_price::float8 AS storage_overage_price, max_users, max_instances, max_workers, staging_counts_in_limit,
  annual_discount_bps, features, sequence, created_at, updated_at, ${CATALOG_VERSION} AS catalog_version
FROM plans
WHERE active
ORDER BY sequence, id`,
  values: []
}

export interface PlanRow {
  id: number
  code: string
  name: string
  description: string
  active: boolean
  is_trial: boolean
  trial_days: number
  currency: string
  /** Minor units: bigint columns, read as float8 (exact below 2^53) so they arrive as numbers. */
  base_price_monthly: number
  included_users: number
  extra_user_price_monthly: number
  storage_limit_gb: number
  storage_overage_price: number
  max_users: number
  max_instances: number
  max_workers: number
  staging_counts_in_limit: boolean
  annual_discount_bps: number
  features: string[]
  sequence: number
  created_at: Date
  updated_at: Date
  catalog_version: string
}

export function toPlanRecord (row: PlanRow): PlanRecord {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    description: row.description,
    active: row.active,
    isTrial: row.is_trial,
    trialDays: row.trial_days,
    currency: row.currency,
    basePriceMonthly: row.base_price_monthly,
    includedUsers: row.included_users,
    extraUserPriceMonthly: row.extra_user_price_monthly,
    storageLimitGb: row.storage_limit_gb,
    storageOveragePrice: row.storage_overage_price,
    maxUsers: row.max_users,
    maxInstances: row.max_instances,
    maxWorkers: row.max_workers,
    stagingCountsInLimit: row.staging_counts_in_limit,
    annualDiscountBps: row.annual_discount_bps,
    features: row.features,
    sequence: row.sequence,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  }
}

/** What the recommendation needs to know about the tenant, and the catalog's version; always exactly one row. */
export const TENANT_PLAN_STATE: TenantStatement = {
  name: 'plans-tenant-state',
  text: `
SELECT
  (SELECT id FROM plan_configurations WHERE tenant_id = $1) AS configuration_id,
  coalesce((SELECT trial_started_at IS NOT NULL FROM subscriptions WHERE tenant_id = $1), false) AS trial_used,
  ${CATALOG_VERSION} AS catalog_version`
}

export interface TenantPlanStateRow {
  configuration_id: number | null
  trial_used: boolean
  catalog_version: string
}
