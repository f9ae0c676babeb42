import { LIST_GRANTS, type GrantRow } from '../../../auth-server/grant-store.ts'
import type { UserActor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { isoUtc, type Sql } from '../../../lib/sql.ts'
import { GrantNotFound } from './oauth.errors.ts'

export interface AgentCallView {
  id: number
  tool: string
  /** A summary of the arguments, secrets removed (mcp/tool-audit.ts). */
  arguments: Record<string, unknown>
  /** `ok`, or the error code the agent got. */
  outcome: string
  duration_ms: number
  client_id: string
  client_name: string
  created_at: string
}

/**
 * A person's calls through one grant, newest first by the call's time (a batched read's row is
 * inserted after the calls that followed it: its id is no guide): grant id, user id, tenant id, limit, offset.
 */
const LIST_CALLS = {
  name: 'oauth-agent-calls-list',
  text: `SELECT id::float8 AS id, tool, arguments, outcome, duration_ms, client_id, client_name, ${isoUtc('created_at')} AS created_at,
  count(*) OVER ()::int AS total
FROM agent_tool_calls WHERE grant_id = $1 AND user_id = $2::uuid AND tenant_id = $3::uuid
ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`
}

/** How many calls a person made through one grant (a page past the end still answers the total): grant id, user id, tenant id. */
const COUNT_CALLS = {
  name: 'oauth-agent-calls-count',
  text: 'SELECT count(*)::int AS n FROM agent_tool_calls WHERE grant_id = $1 AND user_id = $2::uuid AND tenant_id = $3::uuid'
}

/** Calls older than the retention: days. */
const PRUNE_CALLS = `WITH gone AS (DELETE FROM agent_tool_calls WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
SELECT count(*)::int AS n FROM gone`

/** Access rows whose grant is gone (expired, revoked by the auth server itself). */
const PRUNE_ORPHAN_ACCESS = `WITH gone AS (DELETE FROM oauth_grant_access a
  WHERE NOT EXISTS (SELECT 1 FROM oidc_payloads g WHERE g.kind = 'Grant' AND g.id = a.grant_id) RETURNING 1)
SELECT count(*)::int AS n FROM gone`

/** The agents' audit trail: what each connected agent called, for its person; pruned after the retention. */
export function createAgentCallsService ({ sql, retentionDays }: { sql: Sql, retentionDays: number }) {
  return {
    /** One grant's calls, newest first. Another person's grant, or one that never was, is 404. */
    async list ({ actor }: Pick<CallScope<UserActor>, 'actor'>, grantId: string, page: { page: number, per_page: number }): Promise<{ calls: AgentCallView[], total: number }> {
      const rows = await sql<AgentCallView & { total: number }>({ ...LIST_CALLS, values: [grantId, actor.userId, actor.tenantId, page.per_page, (page.page - 1) * page.per_page] })
      if (rows.length === 0) {
        const grants = await sql<GrantRow>({ ...LIST_GRANTS, values: [actor.userId] })
        if (!grants.some((grant) => grant.id === grantId)) throw GrantNotFound()
        if (page.page === 1) return { calls: [], total: 0 }
        const [counted] = await sql<{ n: number }>({ ...COUNT_CALLS, values: [grantId, actor.userId, actor.tenantId] })
        return { calls: [], total: counted?.n ?? 0 }
      }
      return { calls: rows.map(({ total: _total, ...call }) => call), total: rows[0]?.total ?? 0 }
    },

    /** The periodic pass: calls older than the retention, and access rows of grants that no longer exist. */
    async prune (): Promise<{ calls: number, access: number }> {
      const [calls] = await sql<{ n: number }>({ text: PRUNE_CALLS, values: [retentionDays] })
      const [access] = await sql<{ n: number }>({ text: PRUNE_ORPHAN_ACCESS, values: [] })
      return { calls: calls?.n ?? 0, access: access?.n ?? 0 }
    }
  }
}

export type AgentCallsService = ReturnType<typeof createAgentCallsService>
