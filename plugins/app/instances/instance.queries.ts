import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { InstanceState } from './instance.entity.ts'

/** The list: every instance of the tenant but the deleted ones, newest first. */
export const LIST_INSTANCES: TenantStatement = {
  name: 'instances-list',
  text: `
SELECT id, name, subdomain, erp_version, backend, state, status, status_message, created_at
FROM instances
WHERE tenant_id = $1 AND state <> 'deleted'
ORDER BY created_at DESC, id`
}

/** For polling: one primary-key lookup, no backend call. */
export const INSTANCE_STATUS: TenantStatement = {
  name: 'instances-status',
  text: 'SELECT id, state, status, updated_at FROM instances WHERE tenant_id = $1 AND id = $2'
}

export interface InstanceSummaryRow {
  id: string
  name: string
  subdomain: string
  erp_version: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState | null
  status_message: string | null
  created_at: Date
}

export interface InstanceStatusRow {
  id: string
  state: InstanceState
  status: InstanceState | null
  updated_at: Date
}

/** Across tenants, for the reconciler: every instance in a steady state, with its tenant's subdomain. */
export const STEADY_INSTANCES = `
SELECT i.id, i.tenant_id, i.name, i.subdomain, i.backend, i.state, i.status, t.subdomain AS tenant_subdomain
FROM instances i JOIN tenants t ON t.id = i.tenant_id
WHERE i.state IN ('running', 'stopped', 'error')`

export interface SteadyInstanceRow {
  id: string
  tenant_id: string
  name: string
  subdomain: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState | null
  tenant_subdomain: string
}
