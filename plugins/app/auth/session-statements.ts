/**
 * The portal session check as SQL: alone (`AUTHENTICATE`), or wrapped around a
 * tenant statement so that a hot read and its token check are one round trip.
 */
import type { TenantStatement } from '../../../lib/tenant-sql.ts'

/** Who a live session belongs to, as the session check reads it. */
export interface AuthRow {
  id: string
  tenant_id: string
  email: string
  name: string
  role: 'admin' | 'user'
}

/** The live session of a token (session, active user, active tenant), its ids in the given parameters. */
const liveSession = (sessionId: string, userId: string, tenantId: string) => `
SELECT u.id, u.tenant_id, u.email, u.name, u.role
FROM portal_sessions s
JOIN users u ON u.id = s.user_id
JOIN tenants t ON t.id = u.tenant_id
WHERE s.id = ${sessionId} AND s.user_id = ${userId} AND s.tenant_id = ${tenantId}
  AND s.revoked_at IS NULL AND s.expires_at > now()
  AND u.active AND t.status = 'active'`

/**
 * Records the session's use, in the same statement as its check (a CTE named
 * `touched`, run whether read or not), when the live session `live` was last
 * used over a minute ago: one write a minute per session, not one per request.
 */
const touchSession = (sessionId: string, live: string) => `touched AS (
  UPDATE portal_sessions SET last_used_at = now()
  WHERE id = ${sessionId} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute') AND EXISTS (SELECT 1 FROM ${live})
  RETURNING 1
)`

/** The session check alone: one primary-key lookup per request, prepared once per connection. */
export const AUTHENTICATE = {
  name: 'portal-authenticate',
  text: `WITH live AS MATERIALIZED (${liveSession('$1', '$2', '$3')}), ${touchSession('$1', 'live')}
SELECT * FROM live`
}

const sessionStatements = new Map<string, { text: string, values: number }>()

/**
 * The session check and a tenant statement as one statement. The statement
 * keeps its own numbering (`$1` the tenant, then its values); the check takes
 * the token's session and user ids after them and its tenant as the same `$1`,
 * so the statement's rows come back only for a live session of that tenant,
 * as one JSON array in the statement's order.
 */
export function sessionStatement (statement: TenantStatement, values: number): string {
  const known = sessionStatements.get(statement.name)
  if (known !== undefined) {
    if (known.values !== values) throw new Error(`Statement ${statement.name} takes ${known.values} values, not ${values}`)
    return known.text
  }
  const text = `WITH session AS MATERIALIZED (${liveSession(`$${values + 2}`, `$${values + 3}`, '$1')}), ${touchSession(`$${values + 2}`, 'session')}
SELECT session.*, (SELECT coalesce(json_agg(r), '[]'::json) FROM (${statement.text}) r) AS rows FROM session`
  sessionStatements.set(statement.name, { text, values })
  return text
}
