import type { EntityManager } from '@mikro-orm/postgresql'
import type { InstanceResources, TenantQuota } from '../../../provisioning/backend.ts'
import { SUBSCRIPTION_BINDS } from '../limits/limits.service.ts'
import { RELEASED_STATES, sqlStates } from './instance-states.ts'

/** What the tenant's subscription buys, as the resources of one instance need it. */
export interface SubscriptionSize {
  workers: number
  /** Included plus extra storage, GB */
  storageGb: number
  instances: number
}

const HELD = `tenant_id = ? AND state NOT IN (${sqlStates(RELEASED_STATES)})`

/** With a subscription: its own numbers, plus the staging copies it holds that its plan lets take no slot. */
const SUBSCRIPTION_SIZE = `
SELECT s.workers, s.storage + p.storage_limit_gb AS storage_gb,
  s.instances + CASE WHEN p.staging_counts_in_limit THEN 0
    ELSE (SELECT count(*) FROM instances WHERE kind = 'staging' AND ${HELD}) END AS instances
FROM subscriptions s JOIN plans p ON p.id = s.plan_id
WHERE s.tenant_id = ? AND ${SUBSCRIPTION_BINDS}`

/** Before any subscription: small instances, one unless the tenant has more (see subscriptionSize). */
export const NO_SUBSCRIPTION: SubscriptionSize = { workers: 0, storageGb: 10, instances: 1 }

const HELD_INSTANCES = `SELECT count(*)::int AS n FROM instances WHERE ${HELD}`

/**
 * What the tenant's subscription buys. Before any subscription the number of instances is not
 * limited (limits.service.ts), so the tenant-wide ceiling counts the instances it holds (a
 * Kubernetes quota of one would leave a second instance unable to start). With one, its own
 * numbers, whatever else the tenant holds, plus the staging copies its plan lets take no slot
 * (they still need room to run).
 */
export async function subscriptionSize (em: EntityManager, tenantId: string): Promise<SubscriptionSize> {
  const [row] = await em.execute<Array<{ workers: number, storage_gb: number, instances: number | string }>>(SUBSCRIPTION_SIZE, [tenantId, tenantId])
  if (row !== undefined) return { workers: row.workers, storageGb: Number(row.storage_gb), instances: Number(row.instances) }
  const [held] = await em.execute<Array<{ n: number }>>(HELD_INSTANCES, [tenantId])
  return { ...NO_SUBSCRIPTION, instances: Math.max(NO_SUBSCRIPTION.instances, held?.n ?? 0) }
}

/**
 * One instance's limits: a base of 1 GB and one core for the ERP's main
 * process, plus 512 MB and half a core per worker the subscription bought.
 * The filestore gets the subscription's storage.
 */
export function instanceResources (size: SubscriptionSize): InstanceResources {
  const workers = Math.max(0, size.workers)
  return {
    workers,
    memoryMb: 1024 + 512 * workers,
    cpuMillicores: 1000 + 500 * workers,
    storageGb: Math.max(1, size.storageGb)
  }
}

/** The tenant-wide ceiling (Kubernetes ResourceQuota): every instance it may run at full size. */
export function tenantQuota (size: SubscriptionSize): TenantQuota {
  const each = instanceResources(size)
  const instances = Math.max(1, size.instances)
  return {
    instances,
    memoryMb: each.memoryMb * instances,
    cpuMillicores: each.cpuMillicores * instances,
    storageGb: each.storageGb * instances
  }
}
