import type { FastifyInstance } from 'fastify'

/**
 * Instance rows written straight into the database: for tests of the API's
 * rules (and benchmarks) rather than of a backend, so nothing runs anywhere.
 * The one place tests spell `INSERT INTO instances`; the database numbers the
 * ids (the identity) and makes the uids.
 */
export interface InstanceRowOptions {
  /** How many rows (default 1). Past one, names and subdomains get `-<n>` appended. */
  count?: number
  name?: string
  /** Unique across all tenants; default `rec-<random>`. */
  subdomain?: string
  backend?: 'docker' | 'kubernetes' | string
  /** Row n gets states[(n - 1) % states.length]; default running. */
  states?: readonly string[]
}

/** The INSERT for a tenant's rows, for any `$n`-parameter executor (the app's pool, a pg client). Returns `id`. */
export function instanceRowsStatement (tenantId: string, options: InstanceRowOptions = {}): { text: string, values: unknown[] } {
  return {
    text: `INSERT INTO instances (tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, created_at, updated_at)
      SELECT $1, $2 || CASE WHEN $6::int = 1 THEN '' ELSE ' ' || g END, $3 || CASE WHEN $6::int = 1 THEN '' ELSE '-' || g END,
        '17.0', $4, ($5::text[])[1 + (g - 1) % cardinality($5::text[])], 'odoo:17.0', 1024, 1000, 10, now(), now()
      FROM generate_series(1, $6::int) g
      RETURNING id`,
    values: [
      tenantId,
      options.name ?? 'Recorded',
      options.subdomain ?? `rec-${Math.random().toString(36).slice(2, 12)}`,
      options.backend ?? 'docker',
      options.states ?? ['running'],
      options.count ?? 1
    ]
  }
}

/** Records instances of a tenant and returns their integer ids, in order. */
export async function recordInstances (app: FastifyInstance, tenantId: string, options: InstanceRowOptions = {}): Promise<number[]> {
  const rows = await app.sql<{ id: string }>(instanceRowsStatement(tenantId, options))
  return rows.map((row) => Number(row.id))
}

/** Records one instance (running on docker unless told) and returns its integer id. */
export async function recordInstance (app: FastifyInstance, tenantId: string, fields: { state?: string, subdomain?: string, backend?: string, name?: string } = {}): Promise<number> {
  const { state, ...rest } = fields
  const [id] = await recordInstances(app, tenantId, { ...rest, ...(state === undefined ? {} : { states: [state] }) })
  return id!
}

export async function instanceRow (app: FastifyInstance, id: number): Promise<{ state: string, status: string | null, updated_at: Date }> {
  const [row] = await app.sql<{ state: string, status: string | null, updated_at: Date }>({ text: 'SELECT state, status, updated_at FROM instances WHERE id = $1', values: [id] })
  return row!
}

/** The uid the backend labels an instance with and its database is named after (`erp_<uid hex>`). */
export async function instanceUid (app: FastifyInstance, id: number): Promise<string> {
  const [row] = await app.sql<{ uid: string }>({ text: 'SELECT uid FROM instances WHERE id = $1', values: [id] })
  return row!.uid
}
