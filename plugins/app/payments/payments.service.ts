import type { IncomingHttpHeaders } from 'node:http'
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { MikroORM } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { SystemActor } from '../../../lib/actor.ts'
import { minorDigits } from '../../../lib/money.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { ACROSS_TENANTS, scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Subscription } from '../subscriptions/subscription.entity.ts'
import { formatMoney } from '../subscriptions/subscription.view.ts'
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { decidePayment } from './payment-decision.ts'
import type { PaymentEvent } from './payment-provider.ts'
import type { PaymentProviders } from './payment-providers.ts'
import { Payment } from './payment.entity.ts'
import { PaymentProviderNotFound, PaymentReferenceNotFound, WebhookSignatureInvalid } from './payments.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface WebhookOutcome {
  /** The provider already told us about this transaction: nothing changed. */
  duplicate: boolean
  payment_status?: 'paid' | 'failed'
  /** Why a payment was not applied. */
  reason?: string
  /** This event activated the subscription. */
  activated?: boolean
}

export interface PaymentsDeps {
  orm: MikroORM
  providers: PaymentProviders
  subscriptions: Pick<SubscriptionsService, 'settle'>
  activity: ActivityService
  log: FastifyBaseLogger
}

export function createPaymentsService ({ orm, providers, subscriptions, activity, log }: PaymentsDeps) {
  /**
   * Records the provider's event once and, for an exact payment of what is due,
   * activates the subscription through the same `settle` as confirm, in the
   * same transaction. The subscription row lock serialises concurrent events
   * and confirms; the unique (provider, transaction id) catches replays.
   */
  async function apply (provider: string, event: PaymentEvent): Promise<WebhookOutcome> {
    const root = orm.em.fork()
    if (await root.count(Payment, { provider, providerTransactionId: event.transactionId }, ACROSS_TENANTS) > 0) return { duplicate: true }
    // The reference names the tenant; from here on everything runs scoped to that tenant only.
    const owner = await root.findOne(Subscription, { paymentReference: event.reference }, ACROSS_TENANTS)
    if (owner === null) {
      log.warn({ provider, transaction_id: event.transactionId, reference: event.reference }, 'Payment for an unknown reference')
      throw PaymentReferenceNotFound(`No subscription is waiting for payment reference ${event.reference}`)
    }
    const tenantId = owner.tenant.id
    const actor: SystemActor = { kind: 'system', tenantId, job: `payments:${provider}` }
    try {
      return await scopedEntityManager(orm.em, tenantId).transactional(async (tx) => {
        const subscription = await tx.findOne(Subscription, { tenant: tenantId, paymentReference: event.reference }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
        if (subscription === null) throw PaymentReferenceNotFound(`Payment reference ${event.reference} was replaced by a newer one`)
        const decision = decidePayment(event, subscription)
        const payment = tx.create(Payment, {
          tenant: tx.getReference(Tenant, tenantId),
          subscription,
          provider,
          reference: event.reference,
          providerTransactionId: event.transactionId,
          amount: event.amount,
          currency: event.currency,
          status: decision.status,
          // Set whenever the provider says the money moved, even if it was not applied.
          paidAt: event.status === 'paid' ? new Date() : null,
          failureReason: decision.status === 'failed' ? decision.reason.slice(0, 300) : null
        })
        const money = formatMoney(event.amount, event.currency)
        activity.record(tx, actor, decision.status === 'paid'
          ? { type: 'payment.received', title: `Payment of ${money} received (${provider}, reference ${event.reference})`, targetType: 'payment', targetId: payment.id }
          : { type: 'payment.failed', title: `Payment of ${money} not applied: ${decision.reason}`, targetType: 'payment', targetId: payment.id })
        await tx.flush()
        if (decision.status === 'failed') return { duplicate: false, payment_status: 'failed' as const, reason: decision.reason, activated: false }
        const activated = await subscriptions.settle(tx, actor, subscription)
        await tx.flush()
        return { duplicate: false, payment_status: 'paid' as const, activated }
      })
    } catch (error) {
      // A concurrent delivery of the same transaction committed first.
      if (error instanceof UniqueConstraintViolationException) return { duplicate: true }
      throw error
    }
  }

  /** What the webhook route calls: provider, then signature, then payload, then the event. */
  async function receive (providerName: string, rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookOutcome> {
    const provider = providers.get(providerName)
    if (provider === undefined) throw PaymentProviderNotFound(`No payment provider named "${providerName}" is enabled`)
    if (!provider.verifySignature(rawBody, headers)) throw WebhookSignatureInvalid()
    return apply(provider.name, provider.parseEvent(rawBody))
  }

  /** The sandbox provider "pays": a correctly signed event, through the webhook's own path. */
  async function simulate (subscription: Subscription, amountMajor: number | undefined): Promise<WebhookOutcome> {
    const sandbox = providers.sandbox
    if (sandbox === undefined) throw PaymentProviderNotFound('The sandbox payment provider is not enabled (PAYMENT_PROVIDERS)')
    const { currency } = subscription
    const amount = amountMajor === undefined ? subscription.amountDue : Math.round(amountMajor * 10 ** minorDigits(currency))
    const { rawBody, signature } = sandbox.signedEvent({ reference: subscription.paymentReference ?? '', amount, currency, status: 'paid' })
    return receive(sandbox.name, rawBody, { 'x-signature': signature })
  }

  return {
    receive,

    /** Portal: an admin pays one of their own company's references in the sandbox. */
    async sandboxPay ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: { reference: string, amount?: number }): Promise<WebhookOutcome> {
      requireAdmin(actor, 'make sandbox payments')
      if (providers.sandbox === undefined) throw PaymentProviderNotFound('The sandbox payment provider is not enabled (PAYMENT_PROVIDERS)')
      const subscription = await em.findOne(Subscription, { tenant: actor.tenantId, paymentReference: input.reference })
      if (subscription === null) throw PaymentReferenceNotFound(`No subscription of this company is waiting for payment reference ${input.reference}`)
      return simulate(subscription, input.amount)
    },

    /** Operators (ops/payments.ts): any reference, no portal session. */
    async sandboxPayAsOperator (input: { reference: string, amount?: number }): Promise<WebhookOutcome> {
      const subscription = await orm.em.fork().findOne(Subscription, { paymentReference: input.reference }, ACROSS_TENANTS)
      if (subscription === null) throw PaymentReferenceNotFound(`No subscription is waiting for payment reference ${input.reference}`)
      return simulate(subscription, input.amount)
    }
  }
}

export type PaymentsService = ReturnType<typeof createPaymentsService>
