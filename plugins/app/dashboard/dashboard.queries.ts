import { isoUtc } from '../../../lib/sql.ts'
import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import { ACTIVITY_COLUMNS, type ActivityRow } from '../activity/activity.queries.ts'
import { SUBSCRIPTION_BINDS } from '../limits/limits.service.ts'
import { sqlStates } from '../instances/instance-states.ts'

/**
 * The whole home screen in one statement: the company, its subscription and
 * configuration, every count, its instances and its latest 10 activities (as
 * JSON arrays, in their order), however much data the tenant has.
 */
export const DASHBOARD: TenantStatement = {
  name: 'dashboard',
  text: `
SELECT t.name, t.subdomain, t.status,
  s.id AS sub_id, s.status AS sub_status, s.billing_cycle AS sub_cycle, s.users AS sub_users, s.storage AS sub_storage,
  s.workers AS sub_workers, s.instances AS sub_instances, s.currency AS sub_currency, s.amount::float8 AS sub_amount,
  s.amount_due::float8 AS sub_amount_due, ${isoUtc('s.current_period_end')} AS sub_renewal, ${isoUtc('s.trial_ends_at')} AS sub_trial_ends_at,
  sp.id AS sub_plan_id, sp.code AS sub_plan_code, sp.name AS sub_plan_name, coalesce(${SUBSCRIPTION_BINDS}, false) AS sub_binds,
  c.id AS conf_id, c.plan_id AS conf_plan_id, c.users AS conf_users, c.storage AS conf_storage,
  c.workers AS conf_workers, c.instances AS conf_instances, c.billing_cycle AS conf_cycle,
  (SELECT count(*) FROM users WHERE tenant_id = $1)::int AS users_total,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active)::int AS users_active,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active AND role = 'admin')::int AS users_admins,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'open')::int AS tickets_open,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'answered')::int AS tickets_answered,
  (SELECT count(*) FROM invitations WHERE tenant_id = $1 AND status = 'pending' AND expires_at > now())::int AS invitations_pending,
  (SELECT coalesce(json_agg(i ORDER BY i.name, i.id), '[]'::json) FROM (
    SELECT id, name, subdomain, erp_version, backend, state FROM instances WHERE tenant_id = $1 AND state <> ${sqlStates(['deleted'])}
  ) i) AS instances,
  (SELECT coalesce(json_agg(a ORDER BY a.id DESC), '[]'::json) FROM (
    SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE tenant_id = $1 ORDER BY activities.id DESC LIMIT 10
  ) a) AS activities
FROM tenants t
LEFT JOIN subscriptions s ON s.tenant_id = t.id
LEFT JOIN plans sp ON sp.id = s.plan_id
LEFT JOIN plan_configurations c ON c.tenant_id = t.id
WHERE t.id = $1`
}

export interface DashboardRow {
  name: string
  subdomain: string
  status: string
  users_total: number
  users_active: number
  users_admins: number
  tickets_open: number
  tickets_answered: number
  invitations_pending: number
  sub_id: string | null
  sub_status: string | null
  sub_cycle: string | null
  sub_users: number | null
  sub_storage: number | null
  sub_workers: number | null
  sub_instances: number | null
  sub_currency: string | null
  /** bigint minor units, read as float8 (the entity's number). */
  sub_amount: number | null
  sub_amount_due: number | null
  /** ISO 8601, UTC (`isoUtc`). */
  sub_renewal: string | null
  sub_trial_ends_at: string | null
  sub_plan_id: number | null
  sub_plan_code: string | null
  sub_plan_name: string | null
  sub_binds: boolean
  conf_id: number | null
  conf_plan_id: number | null
  conf_users: number | null
  conf_storage: number | null
  conf_workers: number | null
  conf_instances: number | null
  conf_cycle: string | null
  instances: InstanceRow[]
  activities: ActivityRow[]
}

export interface InstanceRow {
  /** bigint, read by pg as a string */
  id: string
  name: string
  subdomain: string
  erp_version: string
  backend: string
  state: string
}
