import { JOINED_ACCESS, JOINED_CLIENT_NAME, liveGrantJoin } from '../auth-server/grant-store.ts'
import type { UserActor } from '../lib/actor.ts'
import type { AgentLevel } from '../lib/agent-access.ts'
import type { Sql } from '../lib/sql.ts'
import type { AccessTokenClaims } from './access-token.ts'

/**
 * One statement per MCP request, after the signature check: the person behind
 * `sub` is still an active user of an active company (tenant and role come from
 * here, never from the token), the grant the token was issued under still
 * exists for this person and client (a disconnected agent, a revoked refresh
 * token or a detected reuse deletes it), and the token's `jti` is not on the
 * revocation denylist. The grant's agent level and instances come along, so a
 * change in the portal applies from the agent's next call on every replica.
 * Prepared once per connection; the grant's part of the
 * statement comes from the grant store (auth-server/grant-store.ts).
 */
const AUTHENTICATE_AGENT = {
  name: 'mcp-authenticate-agent',
  text: `
SELECT u.id, u.tenant_id, u.email, u.name, u.role, ${JOINED_CLIENT_NAME} AS client_name, ${JOINED_ACCESS}
FROM users u
JOIN tenants t ON t.id = u.tenant_id
${liveGrantJoin({ account: '$1', grant: '$2', client: '$3' })}
WHERE u.id = $1::uuid AND u.active AND t.status = 'active'
  AND NOT EXISTS (SELECT 1 FROM oauth_revoked_tokens r WHERE r.jti = $4)`
}

interface AgentRow {
  id: string
  tenant_id: string
  email: string
  name: string
  role: UserActor['role']
  client_name: string | null
  access_level: AgentLevel
  access_instance_ids: number[] | null
}

/** The agent acting for its person, or undefined when the token no longer stands for anyone. */
export async function findAgentActor (sql: Sql, claims: AccessTokenClaims): Promise<UserActor | undefined> {
  const [row] = await sql<AgentRow>({ ...AUTHENTICATE_AGENT, values: [claims.sub, claims.grantId, claims.clientId, claims.jti] })
  if (row === undefined) return undefined
  return {
    kind: 'agent',
    userId: row.id,
    tenantId: row.tenant_id,
    role: row.role,
    email: row.email,
    name: row.name,
    sessionId: claims.grantId,
    clientName: (row.client_name ?? claims.clientId).slice(0, 100),
    clientId: claims.clientId,
    access: { level: row.access_level, instanceIds: row.access_instance_ids?.map(Number) ?? null }
  }
}
