import { pageInfo, pageWindow, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import type { UserActor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { User } from '../users/user.entity.ts'
import { UserNotFound } from '../users/users.errors.ts'
import { SessionNotFound } from './auth.errors.ts'

export interface SessionView {
  id: string
  user_agent: string | null
  ip: string | null
  created_at: string
  last_used_at: string | null
  expires_at: string
  /** The session of the token this request came with. */
  current: boolean
}

interface SessionRow {
  id: string
  user_agent: string | null
  ip: string | null
  created_at: Date
  last_used_at: Date | null
  expires_at: Date
}

const LIVE = 'revoked_at IS NULL AND expires_at > now()'
const iso = (value: Date | null) => value === null ? null : new Date(value).toISOString()

/** A person's open portal sessions (their devices), and the ways to end them. */
export function createSessionsService ({ activity }: { activity: ActivityService }) {
  return {
    /** One page of the caller's live sessions, most recently used first, counted in the same statement. */
    async list ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, request: PageRequest): Promise<{ sessions: SessionView[], pagination: PageInfo }> {
      const { limit, offset } = pageWindow(request)
      const rows = await em.execute<Array<SessionRow & { total: number }>>(
        `SELECT id, user_agent, ip, created_at, last_used_at, expires_at, count(*) OVER ()::int AS total FROM portal_sessions
         WHERE user_id = ? AND tenant_id = ? AND ${LIVE} ORDER BY coalesce(last_used_at, created_at) DESC, id LIMIT ? OFFSET ?`,
        [actor.userId, actor.tenantId, limit, offset], 'all')
      // A page past the end has no row to carry the total: count alone (the caller's own session is live, so page 1 always has one).
      const total = rows[0]?.total ?? (await em.execute<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = ? AND tenant_id = ? AND ${LIVE}`, [actor.userId, actor.tenantId], 'all'))[0]?.n ?? 0
      const sessions = rows.map((row) => ({
        id: row.id,
        user_agent: row.user_agent,
        ip: row.ip,
        created_at: new Date(row.created_at).toISOString(),
        last_used_at: iso(row.last_used_at),
        expires_at: new Date(row.expires_at).toISOString(),
        current: row.id === actor.sessionId
      }))
      return { sessions, pagination: pageInfo(request, total) }
    },

    /** Ends one of the caller's own sessions; anyone else's id (or an ended one) is SESSION_NOT_FOUND. */
    async revoke ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, sessionId: string): Promise<void> {
      await em.transactional(async (tx) => {
        const ended = await tx.execute<unknown[]>(
          `UPDATE portal_sessions SET revoked_at = now() WHERE id = ? AND user_id = ? AND tenant_id = ? AND ${LIVE} RETURNING id`,
          [sessionId, actor.userId, actor.tenantId], 'all')
        if (ended.length !== 1) throw SessionNotFound()
        const title = sessionId === actor.sessionId ? `${actor.name} signed out` : `${actor.name} signed out one of their other sessions`
        activity.record(tx, actor, { type: 'session.revoked', title, targetType: 'session', targetId: sessionId })
      })
    },

    /** Ends every session of the caller but the current one; answers how many ended. */
    async revokeOthers ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>): Promise<number> {
      return em.transactional(async (tx) => {
        const ended = await tx.execute<unknown[]>(
          `UPDATE portal_sessions SET revoked_at = now() WHERE user_id = ? AND tenant_id = ? AND id <> ? AND ${LIVE} RETURNING id`,
          [actor.userId, actor.tenantId, actor.sessionId], 'all')
        activity.record(tx, actor, {
          type: 'session.others_revoked',
          title: `${actor.name} signed out of ${ended.length} other session${ended.length === 1 ? '' : 's'}`,
          targetType: 'user',
          targetId: actor.userId
        })
        return ended.length
      })
    },

    /** An administrator ends every session of a member of their company (another company's user: USER_NOT_FOUND). */
    async revokeAllOf ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, userId: string): Promise<number> {
      requireAdmin(actor, "end a member's sessions")
      return em.transactional(async (tx) => {
        const user = await tx.findOne(User, { id: userId })
        if (user === null) throw UserNotFound()
        const ended = await tx.execute<unknown[]>(
          `UPDATE portal_sessions SET revoked_at = now() WHERE user_id = ? AND tenant_id = ? AND ${LIVE} RETURNING id`,
          [user.id, actor.tenantId], 'all')
        activity.record(tx, actor, {
          type: 'session.all_revoked',
          title: `${actor.name} signed ${user.name} out of every session (${ended.length})`,
          targetType: 'user',
          targetId: user.id
        })
        return ended.length
      })
    }
  }
}

export type SessionsService = ReturnType<typeof createSessionsService>
