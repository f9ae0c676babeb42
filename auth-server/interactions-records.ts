import type pg from 'pg'

export interface ConsentPerson {
  id: string
  name: string
  email: string
  tenantId: string
  tenantName: string
}

/** The person behind an account id, when the handoff did not leave it on the transaction. */
export async function findPerson (pool: pg.Pool, accountId: string): Promise<ConsentPerson | undefined> {
  const { rows } = await pool.query<{ name: string | null, email: string | null, tenant_id: string, tenant_name: string | null }>(
    `SELECT u.name, u.email, u.tenant_id, t.name AS tenant_name
     FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.id::text = $1 AND u.active`, [accountId]
  )
  const row = rows[0]
  if (row === undefined) return undefined
  return { id: accountId, name: row.name ?? '', email: row.email ?? '', tenantId: row.tenant_id, tenantName: row.tenant_name ?? '' }
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
