import { Type } from 'typebox'
import { Id, Success } from './common.ts'
import { ActivityItem } from './activity.ts'
import { INSTANCE_STATES } from '../plugins/app/instances/instance.entity.ts'

const count = Type.Integer({ minimum: 0 })
const VISIBLE_STATES = INSTANCE_STATES.filter((state) => state !== 'deleted')

export const DashboardResponse = Success({
  dashboard: Type.Object({
    company: Type.String({ description: 'Company name' }),
    user: Type.String({ description: "The signed-in user's name" }),
    email: Type.String({ description: "The signed-in user's e-mail" }),
    tenant: Type.Object({ id: Id, subdomain: Type.String() }),
    status: Type.String({ description: 'Company account status: active or suspended' }),
    version: Type.String({ description: 'Portal version' }),
    subscription: Type.Null({ description: 'The active subscription; null until subscriptions exist' }),
    configuration: Type.Null({ description: 'The stored plan configuration; null until subscriptions exist' }),
    instances: Type.Array(Type.Object({
      id: Id,
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
      })
    }),
    activities: Type.Array(ActivityItem, { description: 'The latest 10 records of the activity feed' })
  })
})
