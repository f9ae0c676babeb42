import type { FastifyInstance } from 'fastify'

/** Records an instance straight in the database, for tests of the API's rules rather than of a backend. */
export async function recordInstance (app: FastifyInstance, tenantId: string, fields: { state?: string, subdomain?: string, backend?: string } = {}): Promise<string> {
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO instances (id, tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, created_at, updated_at)
      VALUES (gen_random_uuid(), $1, 'Recorded', $2, '17.0', $3, $4, 'odoo:17.0', 1024, 1000, 10, now(), now()) RETURNING id`,
    values: [tenantId, fields.subdomain ?? `rec-${Math.random().toString(36).slice(2, 12)}`, fields.backend ?? 'docker', fields.state ?? 'running']
  })
  return row!.id
}

export async function instanceRow (app: FastifyInstance, id: string): Promise<{ state: string, status: string | null, updated_at: Date }> {
  const [row] = await app.sql<{ state: string, status: string | null, updated_at: Date }>({ text: 'SELECT state, status, updated_at FROM instances WHERE id = $1', values: [id] })
  return row!
}
