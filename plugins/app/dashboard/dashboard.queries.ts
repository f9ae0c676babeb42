import type { TenantStatement } from '../../../lib/tenant-sql.ts'

/** The company and every count of the home screen, in one statement. */
export const OVERVIEW: TenantStatement = {
  name: 'dashboard-overview',
  text: `
SELECT t.name, t.subdomain, t.status,
  (SELECT count(*) FROM users WHERE tenant_id = $1)::int AS users_total,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active)::int AS users_active,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active AND role = 'admin')::int AS users_admins,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'open')::int AS tickets_open,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'answered')::int AS tickets_answered,
  (SELECT count(*) FROM invitations WHERE tenant_id = $1 AND status = 'pending' AND expires_at > now())::int AS invitations_pending
FROM tenants t
WHERE t.id = $1`
}

export interface OverviewRow {
  name: string
  subdomain: string
  status: string
  users_total: number
  users_active: number
  users_admins: number
  tickets_open: number
  tickets_answered: number
  invitations_pending: number
}

export const INSTANCES: TenantStatement = {
  name: 'dashboard-instances',
  text: `
SELECT id, name, subdomain, erp_version, backend, state
FROM instances
WHERE tenant_id = $1 AND state <> 'deleted'
ORDER BY name, id`
}

export interface InstanceRow {
  id: string
  name: string
  subdomain: string
  erp_version: string
  backend: string
  state: string
}
