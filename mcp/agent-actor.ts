import { JOINED_ACCESS, JOINED_CLIENT_NAME, liveGrantJoin } from '../auth-server/grant-store.ts'
import type { UserActor } from '../lib/actor.ts'
import type { AgentLevel } from '../lib/agent-access.ts'
import type { Sql } from '../lib/sql.ts'
import type { TenantRead } from '../lib/tenant-sql.ts'
import type { AccessTokenClaims } from './access-token.ts'

/**
 * The person behind `sub` is still an active user of an active company (tenant
 * and role come from here, never from the token), the grant the token was
 * issued under still exists for this person and client (a disconnected agent,
 * a revoked refresh token or a detected reuse deletes it), and the token's
 * `jti` is not on the revocation denylist. The grant's agent level and
 * instances come along, so a change in the portal applies from the agent's
 * next call on every replica. The grant's part comes from the grant store
 * (auth-server/grant-store.ts). Placeholders: the user id, grant id, client id, jti.
 */
const agentCheck = (user: string, grant: string, client: string, jti: string) => `
SELECT u.id, u.tenant_id, u.email, u.name, u.role, ${JOINED_CLIENT_NAME} AS client_name, ${JOINED_ACCESS}
FROM users u
JOIN tenants t ON t.id = u.tenant_id
${liveGrantJoin({ account: user, grant, client })}
WHERE u.id = ${user}::uuid AND u.active AND t.status = 'active'
  AND NOT EXISTS (SELECT 1 FROM oauth_revoked_tokens r WHERE r.jti = ${jti})`

/** One statement per MCP request, after the signature check; prepared once per connection. */
const AUTHENTICATE_AGENT = { name: 'mcp-authenticate-agent', text: agentCheck('$1', '$2', '$3', '$4') }

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

function agentOf (row: AgentRow, claims: AccessTokenClaims): UserActor {
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

/** The agent acting for its person, or undefined when the token no longer stands for anyone. */
export async function findAgentActor (sql: Sql, claims: AccessTokenClaims): Promise<UserActor | undefined> {
  const [row] = await sql<AgentRow>({ ...AUTHENTICATE_AGENT, values: [claims.sub, claims.grantId, claims.clientId, claims.jti] })
  return row === undefined ? undefined : agentOf(row, claims)
}

const foldedTexts = new Map<string, string>()

/**
 * The agent check and a read of the agent's tenant as one statement: the read's
 * `$1` (its tenant) becomes the checked person's tenant, `$1` of the whole is
 * the token's user id, the read's own values keep their places, and the token's
 * grant, client and jti come after them. No agent row, no rows.
 */
function foldedText ({ statement, values }: TenantRead): string {
  const key = `${statement.name}/${values.length}`
  const known = foldedTexts.get(key)
  if (known !== undefined) return known
  const n = values.length
  const read = statement.text.replace(/\$1(?!\d)/g, '(SELECT tenant_id FROM agent)')
  const text = `WITH agent AS MATERIALIZED (${agentCheck('$1', `$${n + 2}`, `$${n + 3}`, `$${n + 4}`)})
SELECT agent.*, (SELECT coalesce(json_agg(r), '[]'::json) FROM (${read}) r) AS rows FROM agent`
  foldedTexts.set(key, text)
  return text
}

/**
 * `findAgentActor` and the first read of a call in one round trip (mcp/prefetched-read.ts):
 * the agent and the read's rows, or undefined when the token no longer stands for anyone.
 */
export async function findAgentActorWithRead<Row> (sql: Sql, claims: AccessTokenClaims, read: TenantRead): Promise<{ actor: UserActor, rows: Row[] } | undefined> {
  const [row] = await sql<AgentRow & { rows: Row[] }>({
    name: `mcp-agent+${read.statement.name}/${read.values.length}`,
    text: foldedText(read),
    values: [claims.sub, ...read.values, claims.grantId, claims.clientId, claims.jti]
  })
  return row === undefined ? undefined : { actor: agentOf(row, claims), rows: row.rows }
}
