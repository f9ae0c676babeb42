import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { Subscription } from './subscription.entity.ts'

/** The tenant's subscription row, locked until the transaction ends (re-read, never from the identity map). */
export function lockSubscription (tx: EntityManager, tenantId: string): Promise<Subscription | null> {
  return tx.findOne(Subscription, { tenant: tenantId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
}

/**
 * Creating a tenant's first row (subscription, configuration) can race with
 * another request creating it: the unique tenant column makes the loser fail,
 * and its one retry then finds and locks the winner's row.
 */
export async function retryOnce<T> (work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error
    return work()
  }
}
