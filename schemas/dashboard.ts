import { Type } from 'typebox'
import { FiniteNumber, Id, InstanceId, Int4, ref, Success } from './common.ts'
import { ActivityItem } from './activity.ts'
import { INSTANCE_STATES } from '../plugins/app/instances/instance.entity.ts'

const count = Int4({ minimum: 0 })
const nullableCount = Type.Union([Int4({ minimum: 0 }), Type.Null()])
const VISIBLE_STATES = INSTANCE_STATES.filter((state) => state !== 'deleted')

export const DashboardResponse = Success({
  dashboard: Type.Object({
    company: Type.String({ description: 'Company name' }),
    user: Type.String({ description: "The signed-in user's name" }),
    email: Type.String({ description: "The signed-in user's e-mail" }),
    tenant: Type.Object({ id: Id, subdomain: Type.String() }),
    status: Type.String({ description: 'Company account status: active or suspended' }),
    version: Type.String({ description: 'Portal version' }),
    subscription: Type.Union([Type.Object({
      id: Id,
      plan: Type.Object({ id: Type.Union([Int4(), Type.Null()]), code: Type.Union([Type.String(), Type.Null()]), name: Type.Union([Type.String(), Type.Null()]) }),
      status: Type.Union([Type.String(), Type.Null()], { description: 'trialing, pending_payment, active, past_due, expired or cancelled' }),
      billing_cycle: Type.Union([Type.String(), Type.Null()]),
      renewal_date: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      trial_ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      amount: FiniteNumber({ description: 'Price of the current period, in major units' }),
      amount_due: FiniteNumber({ description: 'Still to pay before activation, in major units' }),
      currency: Type.String(),
      limits: Type.Object({ users: nullableCount, instances: nullableCount, workers: nullableCount, storage: nullableCount })
    }), Type.Null()], { description: "The company's subscription; null when it has none" }),
    configuration: Type.Union([Type.Object({
      id: Int4(),
      plan_id: Type.Union([Int4(), Type.Null()]),
      users: nullableCount,
      storage: nullableCount,
      workers: nullableCount,
      instances: nullableCount,
      billing_cycle: Type.Union([Type.String(), Type.Null()])
    }), Type.Null()], { description: 'The plan configuration chosen for checkout; null when none' }),
    instances: Type.Array(Type.Object({
      id: InstanceId,
      name: Type.String(),
      subdomain: Type.String(),
      erp_version: Type.String(),
      backend: Type.String(),
      state: Type.String()
    })),
    statistics: Type.Object({
      users: Type.Object({ total: count, active: count, admins: count }),
      tickets: Type.Object({ open: count, answered: count }),
      invitations: Type.Object({ pending: count }),
      instances: Type.Object({
        total: count,
        by_state: Type.Object(Object.fromEntries(VISIBLE_STATES.map((state) => [state, count])))
      }),
      usage: Type.Object({
        users: Type.Object({ used: count, limit: nullableCount }),
        instances: Type.Object({ used: count, limit: nullableCount })
      }, { description: 'Use against the subscription\'s limits; limit is null while no active, trialing or past-due subscription binds' })
    }),
    activities: Type.Array(ref(ActivityItem), { description: 'The latest 10 records of the activity feed' })
  })
}, { $id: 'DashboardResponse' })
