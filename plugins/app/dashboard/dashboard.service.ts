import { PRODUCT_VERSION } from '../../../lib/version.ts'
import { INSTANCE_STATES, type InstanceState } from '../instances/instance.entity.ts'
import { configurationBlock, subscriptionBlock, usageBlock } from './dashboard-billing.ts'
import { DASHBOARD, type DashboardRow } from './dashboard.queries.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { visibleInstances } from '../../../lib/agent-capabilities.ts'

const VISIBLE_STATES = INSTANCE_STATES.filter((state) => state !== 'deleted')

export function createDashboardService () {
  return {
    /**
     * The whole home screen in one call and one prepared, tenant-bound
     * statement, however many users, tickets, instances or activities the
     * tenant has. `read` is `auth.sessionSql` for a request (the token checked
     * in that same statement) or `callerSql` for an authenticated actor.
     */
    async get ({ read }: Pick<CallScope, 'read'>) {
      const { actor, rows: [row] } = await read<DashboardRow>(DASHBOARD)
      if (row === undefined) throw new Error(`Tenant ${actor.tenantId} vanished during an authenticated request`)
      // An agent bound to some instances sees those alone; the plan's usage still counts them all.
      const instances = visibleInstances(actor, row.instances, (instance) => instance.id)
      const byState = Object.fromEntries(VISIBLE_STATES.map((state) => [state, 0])) as Record<InstanceState, number>
      for (const instance of instances) byState[instance.state as InstanceState]++
      return {
        company: row.name,
        user: actor.name,
        email: actor.email,
        tenant: { id: actor.tenantId, subdomain: row.subdomain },
        status: row.status,
        version: PRODUCT_VERSION,
        subscription: subscriptionBlock(row),
        configuration: configurationBlock(row),
        instances,
        statistics: {
          users: { total: row.users_total, active: row.users_active, admins: row.users_admins },
          tickets: { open: row.tickets_open, answered: row.tickets_answered },
          invitations: { pending: row.invitations_pending },
          instances: { total: instances.length, by_state: byState },
          usage: usageBlock(row, row.instances.filter((i) => i.state !== 'deleting').length)
        },
        // The same for the latest activities: the company-wide ones (no instance) are not about its instances.
        activities: visibleInstances(actor, row.activities, (activity) => activity.instance_id ?? 0)
      }
    }
  }
}

export type DashboardService = ReturnType<typeof createDashboardService>
