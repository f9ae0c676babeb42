import { defineEntity, p } from '@mikro-orm/core'
import { createdAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const ACTOR_KINDS = ['user', 'agent', 'system'] as const
export type ActorKind = typeof ACTOR_KINDS[number]

/**
 * One row per mutation, written in the same transaction as the change. The
 * integer id is increasing, so it doubles as the feed's pagination cursor.
 */
const ActivitySchema = defineEntity({
  name: 'Activity',
  tableName: 'activities',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    tenant: () => p.manyToOne(Tenant),
    type: p.string().length(60),
    title: p.string().length(300),
    actorKind: p.enum(ACTOR_KINDS),
    /** A user id for users and agents, the job name for the system. */
    actorId: p.string().length(100).nullable(),
    actorName: p.string().length(200),
    /** For agents: the OAuth grant they acted under; the feed links its audit trail. */
    actorGrantId: p.string().length(255).nullable(),
    targetType: p.string().length(40).nullable(),
    targetId: p.string().length(64).nullable(),
    /** The instance the activity is about: its integer id. */
    instanceId: p.bigint('number').nullable(),
    createdAt: createdAt()
  },
  indexes: [
    { properties: ['tenant', 'id'] },
    { properties: ['tenant', 'type', 'id'] },
    { properties: ['tenant', 'instanceId', 'id'] }
  ]
})

export class Activity extends ActivitySchema.class {}
ActivitySchema.setClass(Activity)
