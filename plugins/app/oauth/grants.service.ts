import type { EntityManager } from '@mikro-orm/postgresql'
import { DELETE_GRANT, DELETE_GRANTS_OF_ACCOUNT, FIND_GRANT, LIST_GRANTS, type GrantRow } from '../../../auth-server/grant-store.ts'
import type { Actor, UserActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { GrantNotFound } from './oauth.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface GrantView {
  id: string
  client_id: string
  client_name: string
  created_at: string | null
  last_used_at: string | null
}

function toGrantView (row: GrantRow): GrantView {
  const clientId = row.client_id ?? ''
  return {
    id: row.id,
    client_id: clientId,
    client_name: row.client_name ?? (clientId === '' ? 'Unknown agent' : clientId),
    created_at: row.created_at,
    last_used_at: row.last_used_at
  }
}

const who = (actor: Actor) => actor.kind === 'system' ? 'System' : actor.name

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

    /** Disconnects an agent: the grant and every token and code issued under it. */
    async revoke ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, grantId: string): Promise<void> {
      await em.transactional(async (tx) => {
        const [row] = await tx.execute<GrantRow[]>(FIND_GRANT, [actor.userId, grantId], 'all')
        if (row === undefined) throw GrantNotFound()
        await tx.execute(DELETE_GRANT, [grantId, grantId], 'run')
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
