import type { FastifyBaseLogger } from 'fastify'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { SystemActor } from '../../../lib/actor.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { Subscription } from './subscription.entity.ts'
import type { SubscriptionsService } from './subscriptions.service.ts'

export interface TrialSweeperDeps {
  /** The root EntityManager; each sweep forks it. */
  em: EntityManager
  subscriptions: Pick<SubscriptionsService, 'expireTrial'>
  log: FastifyBaseLogger
  batchSize?: number
}

export interface SweepResult { expired: number }

/**
 * Claims due trials across tenants. SKIP LOCKED: replicas sweeping at the same
 * moment split the rows instead of waiting on each other, and a trial being
 * converted by its tenant right now (row locked by subscribe) is left alone.
 * The database clock decides what is due, so replicas agree.
 */
const CLAIM_DUE_TRIALS = `
SELECT id FROM subscriptions
WHERE status = 'trialing' AND trial_ends_at <= now()
ORDER BY trial_ends_at
LIMIT ?
FOR UPDATE SKIP LOCKED`

export const TRIAL_EXPIRY_JOB = 'trial-expiry'

/** Ends expired trials; the subscriptions plugin runs it on the `trial-expiry` schedule. */
export function createTrialSweeper ({ em, subscriptions, log, batchSize = 100 }: TrialSweeperDeps) {
  /** One batch in one transaction: claimed, expired and recorded together, or not at all. */
  async function sweepBatch (): Promise<number> {
    return em.fork().transactional(async (tx) => {
      const claimed = await tx.execute<Array<{ id: string }>>(CLAIM_DUE_TRIALS, [batchSize])
      if (claimed.length === 0) return 0
      const rows = await tx.find(Subscription, { id: { $in: claimed.map((row) => row.id) } }, { ...ACROSS_TENANTS, refresh: true })
      for (const subscription of rows) {
        const actor: SystemActor = { kind: 'system', tenantId: subscription.tenant.id, job: TRIAL_EXPIRY_JOB }
        subscriptions.expireTrial(tx, actor, subscription)
      }
      await tx.flush()
      return rows.length
    })
  }

  /** Every due trial, batch after batch; safe beside other sweeps (SKIP LOCKED). */
  async function sweep (): Promise<SweepResult> {
    let expired = 0
    for (;;) {
      const count = await sweepBatch()
      expired += count
      if (count < batchSize) break
    }
    if (expired > 0) log.info({ expired }, 'Expired trials ended')
    return { expired }
  }

  return { sweep }
}

export type TrialSweeper = ReturnType<typeof createTrialSweeper>
