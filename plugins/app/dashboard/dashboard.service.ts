import type { UserActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import { tenantSql } from '../../../lib/tenant-sql.ts'
import { PRODUCT_VERSION } from '../../../lib/version.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { INSTANCE_STATES, type InstanceState } from '../instances/instance.entity.ts'
import { configurationBlock, subscriptionBlock, usageBlock } from './dashboard.billing.ts'
import { INSTANCES, OVERVIEW, type InstanceRow, type OverviewRow } from './dashboard.queries.ts'

const VISIBLE_STATES = INSTANCE_STATES.filter((state) => state !== 'deleted')

export function createDashboardService ({ sql, activity }: { sql: Sql, activity: ActivityService }) {
  return {
    /**
     * The whole home screen in one call: three prepared, tenant-bound
     * statements run concurrently, however many users, tickets, instances or
     * activities the tenant has.
     */
    async get (actor: UserActor) {
      const query = tenantSql(sql, actor.tenantId)
      const [[overview], instances, { activities }] = await Promise.all([
        query<OverviewRow>(OVERVIEW),
        query<InstanceRow>(INSTANCES),
        activity.list(actor, { limit: 10 })
      ])
      if (overview === undefined) throw new Error(`Tenant ${actor.tenantId} vanished during an authenticated request`)
      const byState = Object.fromEntries(VISIBLE_STATES.map((state) => [state, 0])) as Record<InstanceState, number>
      for (const instance of instances) byState[instance.state as InstanceState]++
      return {
        company: overview.name,
        user: actor.name,
        email: actor.email,
        tenant: { id: actor.tenantId, subdomain: overview.subdomain },
        status: overview.status,
        version: PRODUCT_VERSION,
        subscription: subscriptionBlock(overview),
        configuration: configurationBlock(overview),
        // bigint ids arrive from pg as strings; the API's instance ids are numbers.
        instances: instances.map((row) => ({ ...row, id: Number(row.id) })),
        statistics: {
          users: { total: overview.users_total, active: overview.users_active, admins: overview.users_admins },
          tickets: { open: overview.tickets_open, answered: overview.tickets_answered },
          invitations: { pending: overview.invitations_pending },
          instances: { total: instances.length, by_state: byState },
          usage: usageBlock(overview, instances.filter((i) => i.state !== 'deleting').length)
        },
        activities
      }
    }
  }
}

export type DashboardService = ReturnType<typeof createDashboardService>
