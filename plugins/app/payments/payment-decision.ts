import type { Subscription } from '../subscriptions/subscription.entity.ts'
import { formatMoney } from '../subscriptions/subscription.view.ts'
import type { PaymentEvent } from './payment-provider.ts'

export type PaymentDecision = { status: 'paid' } | { status: 'failed', reason: string }

/**
 * Whether a provider's event pays what the subscription owes. Anything but an
 * exact match (amount and currency, while payment is awaited) is recorded as
 * `failed` with the reason and never activates: support refunds or reconciles it.
 */
export function decidePayment (event: PaymentEvent, subscription: Pick<Subscription, 'status' | 'amountDue' | 'currency'>): PaymentDecision {
  if (event.status === 'failed') return { status: 'failed', reason: 'The payment provider reported the payment as failed' }
  if (subscription.status !== 'pending_payment' || subscription.amountDue === 0) {
    return { status: 'failed', reason: `Nothing was due under this reference (subscription ${subscription.status}); the payment was not applied` }
  }
  if (event.currency !== subscription.currency) {
    return { status: 'failed', reason: `Currency ${event.currency} does not match the ${formatMoney(subscription.amountDue, subscription.currency)} due` }
  }
  if (event.amount !== subscription.amountDue) {
    return { status: 'failed', reason: `Amount ${formatMoney(event.amount, event.currency)} does not match the ${formatMoney(subscription.amountDue, subscription.currency)} due` }
  }
  return { status: 'paid' }
}
