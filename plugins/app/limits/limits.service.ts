import type { EntityManager } from '@mikro-orm/postgresql'
import { lockTenant } from '../../../database/tenancy.ts'
import { defineError } from '../../../lib/errors.ts'
import { RELEASED_STATES, sqlStates } from '../instances/instance-states.ts'

export const UserLimitReached = defineError('PLAN_USER_LIMIT_REACHED', 'Every user seat of your plan is taken', 402)
export const InstanceLimitReached = defineError('PLAN_INSTANCE_LIMIT_REACHED', 'Every instance of your plan is in use', 402)

/**
 * Whether a subscription's quantities bind: always, except a first checkout
 * still waiting for its payment. A tenant changing plans, or whose trial or
 * subscription ended, keeps the limits it had. Before any subscription, nothing
 * is limited. A SQL condition on a subscription aliased `s`; the dashboard shares it.
 */
export const SUBSCRIPTION_BINDS = "(s.status <> 'pending_payment' OR s.activated_at IS NOT NULL OR s.trial_started_at IS NOT NULL)"

const USER_SEATS = `
SELECT s.users AS limit, (SELECT count(*) FROM users u WHERE u.tenant_id = s.tenant_id AND u.active)::int AS used
FROM subscriptions s WHERE s.tenant_id = ? AND ${SUBSCRIPTION_BINDS}`

/** Staging copies count against the slots unless the subscription's plan says they do not (`staging_counts_in_limit`). */
const INSTANCE_SLOTS = `
SELECT s.instances AS limit, p.staging_counts_in_limit AS staging_counts,
  (SELECT count(*) FROM instances i WHERE i.tenant_id = s.tenant_id AND i.state NOT IN (${sqlStates(RELEASED_STATES)})
    AND (p.staging_counts_in_limit OR i.kind <> 'staging'))::int AS used
FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE s.tenant_id = ? AND ${SUBSCRIPTION_BINDS}`

interface Usage { limit: number, used: number, staging_counts?: boolean }

/**
 * What a subscription allows. Called inside the transaction that adds the
 * thing: it locks the tenant row first, so two additions racing for the last
 * seat are serialised and only one gets it.
 */
export function createLimitsService () {
  async function usage (tx: EntityManager, sql: string, tenantId: string): Promise<Usage | undefined> {
    await lockTenant(tx, tenantId)
    const [row] = await tx.execute<Usage[]>(sql, [tenantId])
    return row
  }

  return {
    async assertUserSeat (tx: EntityManager, tenantId: string): Promise<void> {
      const seats = await usage(tx, USER_SEATS, tenantId)
      if (seats !== undefined && seats.used >= seats.limit) {
        throw UserLimitReached(
          `Your plan includes ${seats.limit} users and all are taken: upgrade the subscription or deactivate a user first`,
          { limit: seats.limit, used: seats.used }
        )
      }
    },

    /** `staging`: the instance is a staging copy, which takes no slot on a plan whose staging copies do not count. */
    async assertInstanceSlot (tx: EntityManager, tenantId: string, { staging = false }: { staging?: boolean } = {}): Promise<void> {
      const slots = await usage(tx, INSTANCE_SLOTS, tenantId)
      if (staging && slots?.staging_counts === false) return
      if (slots !== undefined && slots.used >= slots.limit) {
        throw InstanceLimitReached(
          `Your plan includes ${slots.limit} instances and all are in use: upgrade the subscription or delete an instance first`,
          { limit: slots.limit, used: slots.used }
        )
      }
    }
  }
}

export type LimitsService = ReturnType<typeof createLimitsService>
