import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { Activity, type ActorKind } from './activity.entity.ts'

export interface ActivityInput {
  /** Dotted, stable, e.g. `user.created`, `ticket.replied`, `instance.started`. */
  type: string
  /** What a person reads in the feed, e.g. "Ada invited bob@example.com". */
  title: string
  targetType?: string
  targetId?: string
  instanceId?: string | null
}

export interface ActivityView {
  id: number
  title: string
  type: string
  actor: { kind: ActorKind, id: string | null, name: string }
  target_type: string | null
  target_id: string | null
  instance_id: string | null
  created_at: string
}

export interface ActivityQuery {
  limit: number
  before?: number
  type?: string
  instanceId?: string
}

/** Who to credit: the user, the agent (by client name, on behalf of its user), or the system job. */
function actorColumns (actor: Actor): { actorKind: ActorKind, actorId: string | null, actorName: string } {
  if (actor.kind === 'system') return { actorKind: 'system', actorId: actor.job, actorName: `System (${actor.job})` }
  if (actor.kind === 'agent') return { actorKind: 'agent', actorId: actor.userId, actorName: `${actor.clientName ?? 'Agent'} for ${actor.name}`.slice(0, 200) }
  return { actorKind: 'user', actorId: actor.userId, actorName: actor.name }
}

export function toActivityView (row: Activity): ActivityView {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    actor: { kind: row.actorKind, id: row.actorId ?? null, name: row.actorName },
    target_type: row.targetType ?? null,
    target_id: row.targetId ?? null,
    instance_id: row.instanceId ?? null,
    created_at: row.createdAt.toISOString()
  }
}

export function createActivityService () {
  return {
    /**
     * Adds an activity record to `em`'s unit of work. Call it inside the
     * mutation's own `em.transactional(...)`: the record is written by the same
     * flush, in the same transaction, or not at all.
     */
    record (em: EntityManager, actor: Actor, input: ActivityInput): Activity {
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

    /** Newest first; `before` is the id of the last item of the previous page. */
    async list (em: EntityManager, query: ActivityQuery): Promise<{ activities: ActivityView[], next_cursor: number | null }> {
      const where: Record<string, unknown> = {}
      if (query.before !== undefined) where.id = { $lt: query.before }
      if (query.type !== undefined) where.type = query.type
      if (query.instanceId !== undefined) where.instanceId = query.instanceId
      const rows = await em.find(Activity, where, { orderBy: { id: 'desc' }, limit: query.limit + 1 })
      const page = rows.slice(0, query.limit)
      const last = page.at(-1)
      return { activities: page.map(toActivityView), next_cursor: rows.length > query.limit && last !== undefined ? last.id : null }
    }
  }
}

export type ActivityService = ReturnType<typeof createActivityService>
