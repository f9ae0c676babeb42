import type { FastifyInstance } from 'fastify'
import { instanceRowsStatement } from './instance-rows.ts'

export interface BulkCounts { users?: number, tickets?: number, instances?: number, activities?: number }
export type Execute = (text: string, values: unknown[]) => Promise<unknown>

/**
 * Bulk rows for size-independence tests and the benchmarks, inserted with
 * plain SQL (fast). Takes any `$n`-parameter executor: the app's pool or a pg client.
 */
export async function fillTenantWith (execute: Execute, tenantId: string, counts: BulkCounts): Promise<void> {
  const tag = Math.random().toString(36).slice(2, 8)
  if (counts.users) {
    await execute(`INSERT INTO users (id, tenant_id, email, name, role, active, password_hash, created_at, updated_at)
      SELECT gen_random_uuid(), $1, 'bulk-' || $2 || '-' || g || '@example.com', 'Bulk User ' || g, 'user', true, 'x', now(), now()
      FROM generate_series(1, $3::int) g`, [tenantId, tag, counts.users])
  }
  if (counts.tickets) {
    await execute(`INSERT INTO tickets (id, tenant_id, subject, description, priority, status, last_message_at, created_at, updated_at)
      SELECT gen_random_uuid(), $1, 'Ticket ' || g, 'Text', 'normal', CASE WHEN g % 3 = 0 THEN 'closed' ELSE 'open' END, now(), now(), now()
      FROM generate_series(1, $2::int) g`, [tenantId, counts.tickets])
  }
  if (counts.instances) {
    const rows = instanceRowsStatement(tenantId, { count: counts.instances, name: 'Instance', subdomain: `bulk-${tag}`, states: ['stopped', 'running'] })
    await execute(rows.text, rows.values)
  }
  if (counts.activities) {
    await execute(`INSERT INTO activities (tenant_id, type, title, actor_kind, actor_id, actor_name, created_at)
      SELECT $1, CASE WHEN g % 2 = 0 THEN 'backup.completed' ELSE 'backup.failed' END, 'Bulk activity ' || g, 'system', 'bulk', 'System (bulk)', now()
      FROM generate_series(1, $2::int) g`, [tenantId, counts.activities])
  }
}

export function fillTenant (app: FastifyInstance, tenantId: string, counts: BulkCounts): Promise<void> {
  return fillTenantWith((text, values) => app.sql({ text, values }), tenantId, counts)
}
