import type { FastifyInstance } from 'fastify'

/** Bulk rows for size-independence tests and benchmarks, inserted with plain SQL (fast). */
export async function fillTenant (app: FastifyInstance, tenantId: string, counts: { users?: number, tickets?: number, instances?: number, activities?: number }): Promise<void> {
  const run = (sql: string, params: unknown[]) => app.orm.em.getConnection().execute(sql, params, 'run')
  const tag = Math.random().toString(36).slice(2, 8)
  if (counts.users) {
    await run(`INSERT INTO users (id, tenant_id, email, name, role, active, password_hash, created_at, updated_at)
      SELECT gen_random_uuid(), ?, 'bulk-' || ? || '-' || g || '@example.com', 'Bulk User ' || g, 'user', true, 'x', now(), now()
      FROM generate_series(1, ?) g`, [tenantId, tag, counts.users])
  }
  if (counts.tickets) {
    await run(`INSERT INTO tickets (id, tenant_id, subject, description, priority, status, last_message_at, created_at, updated_at)
      SELECT gen_random_uuid(), ?, 'Ticket ' || g, 'Text', 'normal', CASE WHEN g % 3 = 0 THEN 'closed' ELSE 'open' END, now(), now(), now()
      FROM generate_series(1, ?) g`, [tenantId, counts.tickets])
  }
  if (counts.instances) {
    await run(`INSERT INTO instances (id, tenant_id, name, subdomain, erp_version, backend, state, created_at, updated_at)
      SELECT gen_random_uuid(), ?, 'Instance ' || g, 'bulk-' || ? || '-' || g, '17.0', 'docker', CASE WHEN g % 2 = 0 THEN 'running' ELSE 'stopped' END, now(), now()
      FROM generate_series(1, ?) g`, [tenantId, tag, counts.instances])
  }
  if (counts.activities) {
    await run(`INSERT INTO activities (tenant_id, type, title, actor_kind, actor_id, actor_name, created_at)
      SELECT ?, CASE WHEN g % 2 = 0 THEN 'bulk.even' ELSE 'bulk.odd' END, 'Bulk activity ' || g, 'system', 'bulk', 'System (bulk)', now()
      FROM generate_series(1, ?) g`, [tenantId, counts.activities])
  }
}
