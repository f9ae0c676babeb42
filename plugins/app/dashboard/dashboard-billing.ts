import { toMajor } from '../../../lib/money.ts'
import type { DashboardRow } from './dashboard.queries.ts'

export function subscriptionBlock (row: DashboardRow) {
  if (row.sub_id === null || row.sub_currency === null) return null
  return {
    id: row.sub_id,
    plan: { id: row.sub_plan_id, code: row.sub_plan_code, name: row.sub_plan_name },
    status: row.sub_status,
    billing_cycle: row.sub_cycle,
    renewal_date: row.sub_renewal,
    trial_ends_at: row.sub_trial_ends_at,
    amount: toMajor(row.sub_amount ?? 0, row.sub_currency),
    amount_due: toMajor(row.sub_amount_due ?? 0, row.sub_currency),
    currency: row.sub_currency,
    limits: { users: row.sub_users, instances: row.sub_instances, workers: row.sub_workers, storage: row.sub_storage }
  }
}

export function configurationBlock (row: DashboardRow) {
  if (row.conf_id === null) return null
  return {
    id: row.conf_id,
    plan_id: row.conf_plan_id,
    users: row.conf_users,
    storage: row.conf_storage,
    workers: row.conf_workers,
    instances: row.conf_instances,
    billing_cycle: row.conf_cycle
  }
}

/** Use against the limits that bind now (the rule is plugins/app/limits'); `limit` is null while nothing binds. */
export function usageBlock (row: DashboardRow, instancesInUse: number) {
  const binding = row.sub_binds
  return {
    users: { used: row.users_active, limit: binding ? row.sub_users : null },
    instances: { used: instancesInUse, limit: binding ? row.sub_instances : null }
  }
}
