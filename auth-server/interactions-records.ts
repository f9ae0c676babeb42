import type pg from 'pg'
import type { AgentAccess } from '../lib/agent-access.ts'
import type { UserRole } from '../plugins/app/users/user.entity.ts'
import { numbered, SAVE_GRANT_ACCESS } from './grant-store.ts'

export interface ConsentPerson {
  id: string
  name: string
  email: string
  tenantId: string
  tenantName: string
  role: UserRole
}

export interface ConsentInstance { id: number, name: string, subdomain: string }

/** The person behind an account id, when the handoff did not leave it on the transaction. */
export async function findPerson (pool: pg.Pool, accountId: string): Promise<ConsentPerson | undefined> {
  const { rows } = await pool.query<{ name: string | null, email: string | null, tenant_id: string, tenant_name: string | null, role: UserRole }>(
    `SELECT u.name, u.email, u.tenant_id, t.name AS tenant_name, u.role
     FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.id::text = $1 AND u.active`, [accountId]
  )
  const row = rows[0]
  if (row === undefined) return undefined
  return { id: accountId, name: row.name ?? '', email: row.email ?? '', tenantId: row.tenant_id, tenantName: row.tenant_name ?? '', role: row.role }
}

/** The company's instances (deleted ones excepted), for "only these instances" on the consent page. */
export async function listConsentInstances (pool: pg.Pool, tenantId: string): Promise<ConsentInstance[]> {
  const { rows } = await pool.query<{ id: string, name: string, subdomain: string }>(
    `SELECT id, name, subdomain FROM instances WHERE tenant_id = $1 AND state <> 'deleted' ORDER BY id LIMIT 1000`, [tenantId])
  return rows.map((row) => ({ id: Number(row.id), name: row.name, subdomain: row.subdomain }))
}

/** What the person chose for the agent, stored with the grant (read by /api/mcp on every request). */
export async function saveGrantAccess (pool: pg.Pool, person: ConsentPerson, grantId: string, access: AgentAccess): Promise<void> {
  await pool.query(numbered(SAVE_GRANT_ACCESS),
    [grantId, person.tenantId, person.id, access.level, access.instanceIds === null ? null : JSON.stringify(access.instanceIds)])
}

/**
 * `oauth.grant_created` in the portal's activity feed. One INSERT after the
 * grant is saved (the grant lives in the provider's adapter, outside any
 * transaction we hold): a crash in between loses the entry, never the grant.
 */
export async function recordConnected (pool: pg.Pool, person: ConsentPerson, clientName: string, grantId: string): Promise<void> {
  const actorName = (person.name === '' ? person.email : person.name).slice(0, 200)
  await pool.query(
    `INSERT INTO activities (tenant_id, type, title, actor_kind, actor_id, actor_name, target_type, target_id, instance_id, created_at)
     VALUES ($1, 'oauth.grant_created', $2, 'user', $3, $4, 'oauth_grant', $5, NULL, now())`,
    [person.tenantId, `${actorName} connected ${clientName}`.slice(0, 300), person.id, actorName, grantId.slice(0, 64)]
  )
}
