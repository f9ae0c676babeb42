import type { EntityManager } from '@mikro-orm/postgresql'
import type { UserActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import { PRODUCT_VERSION } from '../../../lib/version.ts'
import { Activity } from '../activity/activity.entity.ts'
import { toActivityView, type ActivityView } from '../activity/activity.service.ts'
import { INSTANCE_STATES, Instance, type InstanceState } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * Every count of the home screen in one statement. Raw SQL bypasses the ORM's
 * tenant filter, so the tenant id is bound explicitly, from the actor.
 */
const STATISTICS = {
  name: 'dashboard-statistics',
  text: `
SELECT
  (SELECT count(*) FROM users WHERE tenant_id = $1)::int AS users_total,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active)::int AS users_active,
  (SELECT count(*) FROM users WHERE tenant_id = $1 AND active AND role = 'admin')::int AS users_admins,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'open')::int AS tickets_open,
  (SELECT count(*) FROM tickets WHERE tenant_id = $1 AND status = 'answered')::int AS tickets_answered,
  (SELECT count(*) FROM invitations WHERE tenant_id = $1 AND status = 'pending' AND expires_at > now())::int AS invitations_pending`
}

interface StatisticsRow {
  users_total: number
  users_active: number
  users_admins: number
  tickets_open: number
  tickets_answered: number
  invitations_pending: number
}

const VISIBLE_STATES = INSTANCE_STATES.filter((state) => state !== 'deleted')

export function createDashboardService ({ sql }: { sql: Sql }) {
  return {
    /**
     * The whole home screen in one call, in a fixed number of SQL statements
     * (four, run concurrently) however many users, tickets, instances or
     * activities the tenant has.
     */
    async get (em: EntityManager, actor: UserActor) {
      const [tenant, instances, [stats], latest] = await Promise.all([
        em.findOneOrFail(Tenant, { id: actor.tenantId }),
        em.find(Instance, { state: { $ne: 'deleted' } }, { orderBy: { name: 'asc' } }),
        sql<StatisticsRow>({ ...STATISTICS, values: [actor.tenantId] }),
        em.find(Activity, {}, { orderBy: { id: 'desc' }, limit: 10 })
      ])
      const byState = Object.fromEntries(VISIBLE_STATES.map((state) => [state, 0])) as Record<InstanceState, number>
      for (const instance of instances) byState[instance.state as InstanceState]++
      return {
        company: tenant.name,
        user: actor.name,
        email: actor.email,
        tenant: { id: tenant.id, subdomain: tenant.subdomain },
        status: tenant.status,
        version: PRODUCT_VERSION,
        // Filled by the subscription issue.
        subscription: null,
        configuration: null,
        instances: instances.map((instance) => ({
          id: instance.id,
          name: instance.name,
          subdomain: instance.subdomain,
          erp_version: instance.erpVersion,
          backend: instance.backend,
          state: instance.state
        })),
        statistics: {
          users: { total: stats?.users_total ?? 0, active: stats?.users_active ?? 0, admins: stats?.users_admins ?? 0 },
          tickets: { open: stats?.tickets_open ?? 0, answered: stats?.tickets_answered ?? 0 },
          invitations: { pending: stats?.invitations_pending ?? 0 },
          instances: { total: instances.length, by_state: byState }
        },
        activities: latest.map(toActivityView) satisfies ActivityView[]
      }
    }
  }
}

export type DashboardService = ReturnType<typeof createDashboardService>
