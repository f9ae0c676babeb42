import type { Instance, InstanceKind, InstanceState } from './instance.entity.ts'
import type { InstanceStatusRow, InstanceSummaryRow } from './instance.queries.ts'

export interface InstanceSummaryView {
  id: number
  name: string
  url: string
  subdomain: string
  erp_version: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState
  status_message: string | null
  /** `production`, or `staging`: a neutralized copy of `parent_id` that is deleted at `expires_at`. */
  kind: InstanceKind
  parent_id: number | null
  expires_at: string | null
  created_at: string
}

export interface InstanceDetailView {
  id: number
  name: string
  url: string
  subdomain: string
  /** The image the backend runs, e.g. `odoo:17.0`. */
  version: string
  erp_version: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  status: InstanceState
  status_message: string | null
  /** MB, from pg_database_size; null when the database server cannot be asked. */
  database_size: number | null
  /** MB */
  memory: number
  /** GB */
  storage: number
  /** cores */
  cpu: number
  database_name: string
  /** Where the database lives: `host:port/database` (no credentials). */
  postgres_db: string
  /** Where it opens from the machine that runs the service (a published loopback port); null when there is none. */
  local_url: string | null
  last_backup: string | null
  last_sync: string | null
  kind: InstanceKind
  /** The production instance a staging copy was made from; null for a production instance. */
  parent_id: number | null
  /** When a staging copy is deleted (ISO 8601, UTC); null for a production instance. */
  expires_at: string | null
  /** The staging copies made from this instance (not deleted ones), oldest first. */
  staging_ids: number[]
}

export interface InstanceStatusView {
  id: number
  state: InstanceState
  status: InstanceState
  updated_at: string
}

/** `https://<subdomain>.<domain>`; plain http for a local development domain. */
export function instanceUrl (subdomain: string, domain: string): string {
  const local = domain === 'localhost' || domain.endsWith('.localhost')
  return `${local ? 'http' : 'https'}://${subdomain}.${domain}`
}

/** `YYYY-MM-DD HH:MM` in UTC, as the portal shows it. */
export function minuteStamp (date: Date | null | undefined): string | null {
  if (date == null) return null
  return date.toISOString().slice(0, 16).replace('T', ' ')
}

export function toInstanceSummary (row: InstanceSummaryRow, domain: string): InstanceSummaryView {
  return {
    id: row.id,
    name: row.name,
    url: instanceUrl(row.subdomain, domain),
    subdomain: row.subdomain,
    erp_version: row.erp_version,
    backend: row.backend,
    state: row.state,
    status: row.status ?? row.state,
    status_message: row.status_message,
    kind: row.kind,
    parent_id: row.parent_id,
    expires_at: row.expires_at,
    created_at: row.created_at
  }
}

export function toInstanceDetail (instance: Instance, extra: {
  domain: string
  databaseName: string
  databaseLocation: string
  databaseBytes: number | undefined
  localUrl?: string | undefined
  stagingIds?: number[]
}): InstanceDetailView {
  return {
    id: instance.id,
    name: instance.name,
    url: instanceUrl(instance.subdomain, extra.domain),
    subdomain: instance.subdomain,
    version: instance.image,
    erp_version: instance.erpVersion,
    backend: instance.backend,
    state: instance.state,
    status: instance.status ?? instance.state,
    status_message: instance.statusMessage ?? null,
    database_size: extra.databaseBytes === undefined ? null : Math.round(extra.databaseBytes / 104_857.6) / 10,
    memory: instance.memoryMb,
    storage: instance.storageGb,
    cpu: instance.cpuMillicores / 1000,
    database_name: extra.databaseName,
    postgres_db: extra.databaseLocation,
    local_url: extra.localUrl ?? null,
    last_backup: minuteStamp(instance.lastBackupAt),
    last_sync: minuteStamp(instance.lastSyncAt),
    kind: instance.kind,
    parent_id: instance.parent?.id ?? null,
    expires_at: instance.expiresAt?.toISOString() ?? null,
    staging_ids: extra.stagingIds ?? []
  }
}

export function toInstanceStatus (row: InstanceStatusRow): InstanceStatusView {
  return { id: row.id, state: row.state, status: row.status, updated_at: row.updated_at }
}
