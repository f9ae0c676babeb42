import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { InstanceState } from '../instances/instance.entity.ts'

/** What the log routes need of one instance: $1 the tenant, $2 the instance. */
export const INSTANCE_LOG_TARGET: TenantStatement = {
  name: 'logs-instance-target',
  text: `
SELECT i.id::float8 AS id, i.uid, i.subdomain, i.backend, i.state, t.subdomain AS tenant_subdomain
FROM instances i JOIN tenants t ON t.id = i.tenant_id
WHERE i.tenant_id = $1 AND i.id = $2::bigint`
}

export interface InstanceLogTargetRow {
  /** bigint, read as float8 (exact below 2^53, as the API's ids). */
  id: number
  uid: string
  subdomain: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  tenant_subdomain: string
}

/** Of the given portal sessions, those still live (as the portal's own token check sees them). */
export const LIVE_SESSIONS = {
  name: 'logs-live-sessions',
  text: `
SELECT s.id FROM portal_sessions s
JOIN users u ON u.id = s.user_id
JOIN tenants t ON t.id = u.tenant_id
WHERE s.id = ANY($1::uuid[]) AND s.revoked_at IS NULL AND s.expires_at > now()
  AND u.active AND t.status = 'active'`
}
