import type { FastifyInstance } from 'fastify'

/**
 * Everything a request or an MCP tool could change in one tenant, as text:
 * compare it before and after a call that must change nothing (a refused role,
 * another tenant's id, invalid input).
 */
export async function tenantSnapshot (app: FastifyInstance, tenantId: string): Promise<string> {
  const rows = await Promise.all([
    app.sql({ text: 'SELECT id, role, active, name, updated_at FROM users WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, status, updated_at, (SELECT count(*) FROM ticket_messages m WHERE m.ticket_id = t.id) AS messages FROM tickets t WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, status, token_hash, send_count, updated_at FROM invitations WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, type, actor_kind, actor_name FROM activities WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, state, status, updated_at FROM instances WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, name, repository_url, branch, subpath, state, last_commit, updated_at FROM addon_sources WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT * FROM tenant_settings WHERE tenant_id = $1', values: [tenantId] }),
    app.sql({ text: 'SELECT id, state, archive_key, updated_at FROM backups WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT * FROM backup_schedules WHERE tenant_id = $1 ORDER BY instance_id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, recipient FROM mail_outbox WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: "SELECT id FROM oidc_payloads WHERE kind = 'Grant' AND payload->>'accountId' IN (SELECT id::text FROM users WHERE tenant_id = $1) ORDER BY id", values: [tenantId] })
  ])
  return JSON.stringify(rows)
}
