import { pageInfo, slicePage, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { DELETE_GRANT, DELETE_GRANTS_OF_ACCOUNT, FIND_GRANT, LIST_GRANTS, SAVE_GRANT_ACCESS, type GrantRow } from '../../../auth-server/grant-store.ts'
import type { Actor, UserActor } from '../../../lib/actor.ts'
import { LEVEL_WORDS, levelAllows, levelCap, type AgentLevel } from '../../../lib/agent-access.ts'
import type { Sql } from '../../../lib/sql.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { AgentLevelAboveRole, GrantAccessByAgent, GrantNotFound } from './oauth.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface GrantView {
  id: string
  client_id: string
  client_name: string
  created_at: string | null
  /** When it last called a tool (the audit trail); null if it never did. */
  last_used_at: string | null
  last_token_at: string | null
  level: AgentLevel
  /** null: every instance of the company. */
  instance_ids: number[] | null
}

export interface GrantAccessInput {
  level: AgentLevel
  instance_ids?: number[] | null | undefined
}

function toGrantView (row: GrantRow): GrantView {
  const clientId = row.client_id ?? ''
  return {
    id: row.id,
    client_id: clientId,
    client_name: row.client_name ?? (clientId === '' ? 'Unknown agent' : clientId),
    created_at: row.created_at,
    last_used_at: row.last_call_at,
    last_token_at: row.last_token_at,
    level: row.level,
    instance_ids: row.instance_ids?.map(Number) ?? null
  }
}

const who = (actor: Actor) => actor.kind === 'system' ? 'System' : actor.name

/** Live instances of the tenant among `ids`, for the ORM's connection: tenant id, ids. */
const LIVE_INSTANCES = `SELECT id FROM instances WHERE tenant_id = ? AND state <> 'deleted' AND id = ANY(?::bigint[])`

/**
 * The agents (OAuth grants) connected to a person's account. Grants belong to
 * one user: another user's grant, in this tenant or any other, is "not found".
 */
export function createGrantsService ({ sql, activity }: { sql: Sql, activity: ActivityService }) {
  return {
    async list ({ actor }: Pick<CallScope<UserActor>, 'actor'>): Promise<GrantView[]> {
      const rows = await sql<GrantRow>({ ...LIST_GRANTS, values: [actor.userId] })
      return rows.map(toGrantView)
    },

    /** One page of the person's grants (REST), newest first; paged in code, as the audit trail's check reads the same list. */
    async listPage (scope: Pick<CallScope<UserActor>, 'actor'>, request: PageRequest): Promise<{ grants: GrantView[], pagination: PageInfo }> {
      const all = await this.list(scope)
      return { grants: slicePage(all, request), pagination: pageInfo(request, all.length) }
    },

    /** Disconnects an agent: the grant and every token and code issued under it. */
    async revoke ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, grantId: string): Promise<void> {
      await em.transactional(async (tx) => {
        const [row] = await tx.execute<GrantRow[]>(FIND_GRANT, [actor.userId, grantId], 'all')
        if (row === undefined) throw GrantNotFound()
        await tx.execute(DELETE_GRANT, [grantId, grantId, grantId], 'run')
        activity.record(tx, actor, {
          type: 'oauth.grant_revoked',
          title: `${who(actor)} disconnected ${toGrantView(row).client_name}`,
          targetType: 'oauth_grant',
          targetId: grantId.slice(0, 64)
        })
      })
    },

    /**
     * Disconnects every agent of a person at once (their password was reset):
     * call it inside the transaction of that change. Answers how many grants ended.
     */
    async revokeAllOf (tx: EntityManager, userId: string): Promise<number> {
      const deleted = await tx.execute<Array<{ kind: string }>>(DELETE_GRANTS_OF_ACCOUNT, [userId, userId, userId], 'all')
      return deleted.filter((row) => row.kind === 'Grant').length
    },

    /**
     * Lowers or raises what an agent may do: its level (up to what the
     * person's role allows) and its instances (null: all). Only the person,
     * in the portal: never an agent. Applies from the agent's next call.
     */
    async setAccess ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, grantId: string, input: GrantAccessInput): Promise<GrantView> {
      if (actor.kind !== 'user') throw GrantAccessByAgent()
      if (!levelAllows(levelCap(actor.role), input.level)) {
        throw AgentLevelAboveRole(`Your role lets you give an agent at most "${LEVEL_WORDS[levelCap(actor.role)].label}"`)
      }
      const wanted = input.instance_ids == null ? null : [...new Set(input.instance_ids)].sort((a, b) => a - b)
      return await em.transactional(async (tx) => {
        const [row] = await tx.execute<GrantRow[]>(FIND_GRANT, [actor.userId, grantId], 'all')
        if (row === undefined) throw GrantNotFound()
        if (wanted !== null) {
          const found = await tx.execute<Array<{ id: number | string }>>(LIVE_INSTANCES, [actor.tenantId, `{${wanted.join(',')}}`], 'all')
          if (found.length !== wanted.length) throw InstanceNotFound()
        }
        await tx.execute(SAVE_GRANT_ACCESS, [grantId, actor.tenantId, actor.userId, input.level, wanted === null ? null : JSON.stringify(wanted)], 'run')
        const view = { ...toGrantView(row), level: input.level, instance_ids: wanted }
        const scope = wanted === null ? 'all instances' : `instances ${wanted.join(', ')}`
        activity.record(tx, actor, {
          type: 'oauth.grant_access_changed',
          title: `${who(actor)} set ${view.client_name} to ${LEVEL_WORDS[input.level].label} on ${scope}`.slice(0, 300),
          targetType: 'oauth_grant',
          targetId: grantId.slice(0, 64)
        })
        return view
      })
    },

    /**
     * For the auth server, when a person allows an agent: records
     * `oauth.grant_created` in `tx` (call it inside the transaction that saves the grant).
     */
    recordConnected (tx: EntityManager, actor: Actor, clientName: string, grantId: string): void {
      activity.record(tx, actor, {
        type: 'oauth.grant_created',
        title: `${who(actor)} connected ${clientName}`,
        targetType: 'oauth_grant',
        targetId: grantId.slice(0, 64)
      })
    }
  }
}

export type GrantsService = ReturnType<typeof createGrantsService>
