import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { Activity, type ActorKind } from './activity.entity.ts'
import { addWebhookEvent } from '../webhooks/webhook-event-writer.ts'
import { LIST_ACTIVITIES, type ActivityRow } from './activity.queries.ts'
import type { ActivityTargetType, ActivityType } from './activity-types.ts'

export interface ActivityInput {
  /** One of the catalog (activity-types.ts), e.g. `user.created`, `ticket.replied`, `instance.running`. */
  type: ActivityType
  /** What a person reads in the feed, e.g. "Ada invited bob@example.com". */
  title: string
  targetType?: ActivityTargetType
  targetId?: string
  /** The instance the change is about (its integer id). */
  instanceId?: number | null
}

export interface ActivityView {
  id: number
  title: string
  type: string
  /** `calls_url`: for an agent, its audit trail (GET /api/oauth/grants/:id/calls; opens for the person who connected it). */
  actor: { kind: ActorKind, id: string | null, name: string, calls_url?: string }
  target_type: string | null
  target_id: string | null
  instance_id: number | null
  created_at: string
}

export interface ActivityQuery {
  /** Page size; 20 when not given (the query schema fills the same default). */
  limit?: number
  before?: number
  type?: ActivityType
  instanceId?: number
}

/** Who to credit: the user, the agent (by client name, on behalf of its user), or the system job. */
function actorColumns (actor: Actor): { actorKind: ActorKind, actorId: string | null, actorName: string, actorGrantId?: string } {
  if (actor.kind === 'system') return { actorKind: 'system', actorId: actor.job, actorName: `System (${actor.job})` }
  if (actor.kind === 'agent') {
    return { actorKind: 'agent', actorId: actor.userId, actorName: `${actor.clientName ?? 'Agent'} for ${actor.name}`.slice(0, 200), actorGrantId: actor.sessionId }
  }
  return { actorKind: 'user', actorId: actor.userId, actorName: actor.name }
}

/**
 * An agent bound to some instances (lib/agent-access.ts) reads only the activity about them:
 * not the other instances', and not the company-wide entries (team, billing, settings).
 */
function onlyInstances (actor: Actor | null): number[] | null {
  // null: a portal-inline request, whose person the statement itself identifies; agents never come that way.
  return actor?.kind === 'agent' ? actor.access?.instanceIds ?? null : null
}

export function createActivityService () {
  /**
   * Raw, prepared and tenant-bound: the feed is read far more often than it is
   * written. `read` is `auth.sessionSql` for a request (token checked in the
   * same statement) or `callerSql` for an authenticated actor.
   */
  async function list ({ read, actor }: Pick<CallScope, 'read' | 'actor'>, query: ActivityQuery): Promise<{ activities: ActivityView[], next_cursor: number | null }> {
    const limit = query.limit ?? 20
    const { rows } = await read<ActivityRow>(LIST_ACTIVITIES, [
      query.before ?? null, query.type ?? null, query.instanceId ?? null, limit + 1, onlyInstances(actor)
    ])
    const page: ActivityView[] = rows.slice(0, limit)
    const last = page.at(-1)
    return { activities: page, next_cursor: rows.length > limit && last !== undefined ? last.id : null }
  }

  return {
    /**
     * Adds an activity record to `em`'s unit of work. Call it inside the
     * mutation's own `em.transactional(...)`: the record is written by the same
     * flush, in the same transaction, or not at all.
     */
    record (em: EntityManager, actor: Actor, input: ActivityInput): Activity {
      // A webhook event (when the type is one) joins the same unit of work, hence the same transaction.
      addWebhookEvent(em, actor.tenantId, input)
      return em.create(Activity, {
        tenant: em.getReference(Tenant, actor.tenantId),
        type: input.type,
        title: input.title.slice(0, 300),
        ...actorColumns(actor),
        targetType: input.targetType ?? null,
        targetId: input.targetId ?? null,
        instanceId: input.instanceId ?? null
      })
    },

    /** Newest first; `before` is `next_cursor` of the previous page. */
    list
  }
}

export type ActivityService = ReturnType<typeof createActivityService>
