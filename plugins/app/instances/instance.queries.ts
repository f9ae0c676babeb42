import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { InstanceKind, InstanceState } from './instance.entity.ts'
import { sqlStates, STEADY_STATES } from './instance-states.ts'

const LIVE_INSTANCES = `FROM instances
WHERE tenant_id = $1 AND state <> ${sqlStates(['deleted'])}`

const SUMMARIES = `
SELECT id::float8 AS id, name, subdomain, erp_version, backend, state, status, status_message, kind, parent_id::float8 AS parent_id,
  to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
${LIVE_INSTANCES}
ORDER BY created_at DESC, id`

/** The list: every instance of the tenant but the deleted ones, newest first. */
export const LIST_INSTANCES: TenantStatement = { name: 'instances-list', text: SUMMARIES }

/**
 * One page of the list ($2 rows from $3 on) and how many there are, as one row:
 * a front end's first page reads, turns into JSON and parses 25 rows, not all.
 */
export const INSTANCES_PAGE: TenantStatement = {
  name: 'instances-page',
  text: `SELECT (SELECT count(*)::int ${LIVE_INSTANCES}) AS total,
  coalesce((SELECT json_agg(page) FROM (${SUMMARIES} LIMIT $2 OFFSET $3) page), '[]'::json) AS instances`
}

const STATUS_COLUMNS = `id::float8 AS id, state, coalesce(status, state) AS status,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at`

/** One instance's state, for polling and the MCP status tool: $1 the tenant, $2 the instance; no backend call. */
export const INSTANCE_STATUS: TenantStatement = {
  name: 'instances-status',
  text: `SELECT ${STATUS_COLUMNS} FROM instances WHERE tenant_id = $1 AND id = $2::bigint`
}

/** The bigint id is read as float8: a number both straight from pg and through JSON (exact below 2^53, as the API's ids). */
export interface InstanceSummaryRow {
  id: number
  name: string
  subdomain: string
  erp_version: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState | null
  status_message: string | null
  kind: InstanceKind
  parent_id: number | null
  /** ISO 8601, UTC; null for a production instance. */
  expires_at: string | null
  /** ISO 8601, UTC, formatted by the database (cheaper than fifty Date parses per list). */
  created_at: string
}

export interface InstancesPageRow {
  total: number
  instances: InstanceSummaryRow[]
}

export interface InstanceStatusRow {
  id: number
  state: InstanceState
  status: InstanceState
  /** ISO 8601 with microseconds, UTC: the ETag's clock, so it must change with every update. */
  updated_at: string
}

/** Across tenants, for the reconciler: every instance in a steady state, with its tenant's subdomain. */
export const STEADY_INSTANCES = `
SELECT i.id::float8 AS id, i.uid, i.tenant_id, i.name, i.subdomain, i.backend, i.state, i.status, t.subdomain AS tenant_subdomain
FROM instances i JOIN tenants t ON t.id = i.tenant_id
WHERE i.state IN (${sqlStates(STEADY_STATES)})`

export interface SteadyInstanceRow {
  id: number
  /** The instance's fixed uuid: what the backend labels carry. */
  uid: string
  tenant_id: string
  name: string
  subdomain: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState | null
  tenant_subdomain: string
}
