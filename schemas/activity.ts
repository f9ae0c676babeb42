import { Type } from 'typebox'
import { ACTIVITY_TYPES } from '../plugins/app/activity/activity-types.ts'
import { BigInt53, InstanceId, Int4, ref, Success } from './common.ts'

export const ActivityItem = Type.Object({
  id: BigInt53({ minimum: 1, description: 'Increasing; also the pagination cursor' }),
  title: Type.String(),
  type: Type.String({ description: 'One of the activity types (the `type` filter lists them), e.g. user.created, ticket.replied, instance.running' }),
  actor: Type.Object({
    kind: Type.Unsafe<'user' | 'agent' | 'system'>({ type: 'string', enum: ['user', 'agent', 'system'] }),
    id: Type.Union([Type.String(), Type.Null()], { description: 'User id (users and agents) or job name (system)' }),
    name: Type.String(),
    calls_url: Type.Optional(Type.String({ description: 'Agents only: their audit trail (`GET /api/oauth/grants/:id/calls`), readable by the person who connected the agent' }))
  }),
  target_type: Type.Union([Type.String(), Type.Null()]),
  target_id: Type.Union([Type.String(), Type.Null()], { description: 'The target\'s id as text: a uuid, a plan configuration\'s number, or an instance\'s integer id in decimal (e.g. "42")' }),
  instance_id: Type.Union([InstanceId, Type.Null()], { description: 'The instance the activity is about, if any' }),
  created_at: Type.String({ format: 'date-time' })
}, { $id: 'Activity' })

export const ActivityQuery = Type.Object({
  limit: Type.Optional(Int4({ minimum: 1, maximum: 100, default: 20, description: 'Page size, at most 100; default 20' })),
  before: Type.Optional(BigInt53({ minimum: 1, description: 'Cursor: `next_cursor` of the previous page; returns older items' })),
  // `enum` (not a union of literals) so that a wrong value's error lists the allowed ones.
  type: Type.Optional(Type.Enum(ACTIVITY_TYPES, { description: 'Only this activity type, one of the catalog (e.g. user.created, instance.running; meanings in the company docs)' })),
  instance_id: Type.Optional(BigInt53({ minimum: 1, description: 'Only activities about this instance (its id)' }))
}, { additionalProperties: false })

export const ActivityListResponse = Success({
  activities: Type.Array(ref(ActivityItem)),
  next_cursor: Type.Union([BigInt53({ minimum: 1 }), Type.Null()], { description: 'Pass as `before` for the next (older) page; null on the last page' })
}, { $id: 'ActivityListResponse' })
