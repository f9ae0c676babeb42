import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './subscription.entity.ts'
import { SubscriptionTransitionInvalid } from './subscriptions.errors.ts'

/** `null`: the tenant has no subscription yet. */
export type SubscriptionState = SubscriptionStatus | null

/**
 * The one state machine of a subscription: every status change goes through
 * `assertTransition`. A transition to the same status is allowed only where it
 * means something (a re-quote while waiting for payment, a renewal).
 */
export const TRANSITIONS: Readonly<Record<SubscriptionStatus | 'none', readonly SubscriptionStatus[]>> = {
  none: ['trialing', 'pending_payment', 'active'],
  trialing: ['pending_payment', 'active', 'expired', 'cancelled'],
  pending_payment: ['active', 'pending_payment', 'cancelled'],
  active: ['pending_payment', 'past_due', 'cancelled', 'active'],
  past_due: ['active', 'expired', 'cancelled'],
  expired: ['pending_payment', 'active'],
  cancelled: ['pending_payment', 'active']
}

export const ALL_STATES: readonly SubscriptionState[] = [null, ...SUBSCRIPTION_STATUSES]

export function canTransition (from: SubscriptionState, to: SubscriptionStatus): boolean {
  return TRANSITIONS[from ?? 'none'].includes(to)
}

/** Throws 409 SUBSCRIPTION_TRANSITION_INVALID naming both states. */
export function assertTransition (from: SubscriptionState, to: SubscriptionStatus): void {
  if (canTransition(from, to)) return
  const origin = from ?? 'none'
  throw SubscriptionTransitionInvalid(
    from === null ? `A subscription cannot start as ${to}` : `A subscription cannot go from ${origin} to ${to}`,
    { from: origin, to, allowed: TRANSITIONS[origin] }
  )
}
