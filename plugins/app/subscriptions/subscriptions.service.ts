import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { toMajor } from '../../../lib/money.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { Payment } from '../payments/payment.entity.ts'
import { Plan } from '../plans/plan.entity.ts'
import { quote, toPricingView, type PricingView } from '../plans/pricing.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { addBillingCycle } from './billing-cycle.ts'
import { PlanConfiguration, type BillingCycle } from './plan-configuration.entity.ts'
import { newPaymentReference } from './payment-reference.ts'
import { assertQuantities, findActivePlan, findCheckoutPlan, quantitiesFor, defaultQuantities, type Quantities } from './plan-selection.ts'
import { assertTransition } from './subscription-states.ts'
import { lockSubscription, retryOnce } from './subscription-lock.ts'
import { Subscription, type SubscriptionStatus } from './subscription.entity.ts'
import { formatMoney, loadSubscriptionView, toConfigurationView, type ConfigurationView, type SubscriptionView } from './subscription.view.ts'
import { NothingToConfirm, PaymentRequired, PlanNotTrial, SubscriptionNotFound, SubscriptionPlanMismatch, TrialAlreadyUsed } from './subscriptions.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

const DAY_MS = 86_400_000

export interface SelectPlanInput extends Quantities { planId: number, billingCycle: BillingCycle }

const who = (actor: Actor) => actor.kind === 'system' ? 'The system' : actor.name
const day = (date: Date) => date.toISOString().slice(0, 10)

export function createSubscriptionsService ({ activity }: { activity: ActivityService }) {
  function record (tx: EntityManager, actor: Actor, subscription: Subscription, type: ActivityType, title: string): void {
    activity.record(tx, actor, { type, title, targetType: 'subscription', targetId: subscription.id })
  }

  /** Creates the row or changes it: always through the state machine. */
  function write (tx: EntityManager, actor: Actor, existing: Subscription | null, to: SubscriptionStatus, data: Omit<Partial<Subscription>, 'status'>): Subscription {
    assertTransition(existing?.status ?? null, to)
    if (existing !== null) return tx.assign(existing, { ...data, status: to })
    return tx.create(Subscription, { ...data, tenant: tx.getReference(Tenant, actor.tenantId), status: to } as Subscription)
  }

  /** Paid (or free): a new period starts now and ends one billing cycle later. */
  function activate (tx: EntityManager, actor: Actor, subscription: Subscription, plan: Plan): void {
    const now = new Date()
    const end = addBillingCycle(now, subscription.billingCycle)
    // A subscription that had a paid period before starts another: a renewal.
    const renewal = subscription.activatedAt != null && subscription.currentPeriodEnd != null
    write(tx, actor, subscription, 'active', { amountDue: 0, currentPeriodStart: now, currentPeriodEnd: end, activatedAt: now, endedAt: null })
    record(tx, actor, subscription, renewal ? 'subscription.renewed' : 'subscription.activated',
      `Subscription to ${plan.name} (${subscription.billingCycle}) ${renewal ? 'renewed' : 'active'} until ${day(end)}`)
  }

  /**
   * Activates a subscription waiting for payment once the provider confirmed a
   * payment of exactly the amount due, in its currency, under its current
   * reference. Already active with nothing due: nothing to do (false). The
   * caller holds the subscription's row lock, so concurrent callers (confirm,
   * webhooks) activate it once.
   */
  async function settle (tx: EntityManager, actor: Actor, subscription: Subscription): Promise<boolean> {
    if (subscription.status === 'active' && subscription.amountDue === 0) return false
    if (subscription.status !== 'pending_payment') {
      throw NothingToConfirm(`The subscription is ${subscription.status}: no payment is awaited; subscribe to a plan first`, { status: subscription.status })
    }
    const { paymentReference: reference, amountDue, currency } = subscription
    const payments = await tx.find(Payment, { subscription: subscription.id, reference: reference ?? '' }, { orderBy: { createdAt: 'desc' } })
    const paid = payments.find((p) => p.status === 'paid' && p.amount === amountDue && p.currency === currency)
    if (paid === undefined) {
      const refused = payments.find((p) => p.status === 'failed')
      const due = formatMoney(amountDue, currency)
      throw PaymentRequired(refused === undefined
        ? `No payment of ${due} for reference ${reference} has been confirmed by the payment provider yet`
        : `The payment for reference ${reference} was refused (${refused.failureReason ?? 'declined'}); ${due} is still due`,
      { payment_reference: reference, amount_due: toMajor(amountDue, currency), currency })
    }
    activate(tx, actor, subscription, await tx.findOneOrFail(Plan, subscription.plan.id))
    return true
  }

  async function requireSubscription (tx: EntityManager, tenantId: string): Promise<Subscription> {
    const subscription = await lockSubscription(tx, tenantId)
    if (subscription === null) throw SubscriptionNotFound()
    return subscription
  }

  return {
    settle,

    async current ({ em, actor }: Pick<CallScope, 'em' | 'actor'>): Promise<SubscriptionView> {
      const subscription = await em.findOne(Subscription, { tenant: actor.tenantId })
      if (subscription === null) throw SubscriptionNotFound()
      return loadSubscriptionView(em, subscription)
    },

    /** Stores (or replaces) the plan and quantities chosen ahead of checkout, and prices them. */
    async selectPlan ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: SelectPlanInput): Promise<{ configuration: ConfigurationView, quote: PricingView }> {
      requireAdmin(actor, 'choose the plan')
      const plan = await findCheckoutPlan(em, input.planId)
      const { users, storage, workers, instances, billingCycle } = input
      assertQuantities(plan, { users, storage, workers, instances })
      const priced = quote(plan, { users, storage, billingCycle })
      return retryOnce(() => em.transactional(async (tx) => {
        const data = { plan: tx.getReference(Plan, plan.id), users, storage, workers, instances, billingCycle }
        const existing = await tx.findOne(PlanConfiguration, { tenant: actor.tenantId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
        const configuration = existing === null
          ? tx.create(PlanConfiguration, { ...data, tenant: tx.getReference(Tenant, actor.tenantId) } as PlanConfiguration)
          : tx.assign(existing, data)
        await tx.flush() // the id is assigned by the database
        activity.record(tx, actor, {
          type: 'subscription.plan_selected',
          title: `${who(actor)} chose ${plan.name} (${billingCycle}) for ${users} users: ${formatMoney(priced.total, plan.currency)}`,
          targetType: 'plan_configuration',
          targetId: String(configuration.id)
        })
        await tx.flush()
        return { configuration: toConfigurationView(configuration, plan), quote: toPricingView(priced) }
      }))
    },

    /**
     * Prices the stored configuration (or the plan's defaults) and asks for
     * payment under a fresh reference; a free price activates at once.
     * Repeating it with nothing changed keeps the pending reference.
     */
    async subscribe ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: { planId: number, billingCycle: BillingCycle }): Promise<{ subscription: SubscriptionView, quote: PricingView }> {
      requireAdmin(actor, 'subscribe')
      const plan = await findCheckoutPlan(em, input.planId)
      const { billingCycle } = input
      return retryOnce(() => em.transactional(async (tx) => {
        const quantities = quantitiesFor(plan, await tx.findOne(PlanConfiguration, { tenant: actor.tenantId }))
        assertQuantities(plan, quantities)
        const priced = quote(plan, { users: quantities.users, storage: quantities.storage, billingCycle })
        const free = priced.total === 0
        const to: SubscriptionStatus = free ? 'active' : 'pending_payment'
        const existing = await lockSubscription(tx, actor.tenantId)
        const unchanged = existing !== null && existing.status === to && existing.plan.id === plan.id && existing.billingCycle === billingCycle &&
          existing.amount === priced.total && (Object.keys(quantities) as Array<keyof Quantities>).every((key) => existing[key] === quantities[key])
        if (!unchanged) {
          const subscription = write(tx, actor, existing, to, {
            plan: tx.getReference(Plan, plan.id), billingCycle, ...quantities, currency: plan.currency,
            amount: priced.total, amountDue: priced.total, paymentReference: free ? null : newPaymentReference(), endedAt: null
          })
          if (free) activate(tx, actor, subscription, plan)
          else record(tx, actor, subscription, 'subscription.payment_requested', `${who(actor)} subscribed to ${plan.name} (${billingCycle}): ${formatMoney(priced.total, plan.currency)} due under reference ${subscription.paymentReference}`)
          await tx.flush()
          return { subscription: await loadSubscriptionView(tx, subscription), quote: toPricingView(priced) }
        }
        return { subscription: await loadSubscriptionView(tx, existing), quote: toPricingView(priced) }
      }))
    },

    /** Finalises checkout once the payment provider has confirmed the payment (see settle). */
    async confirm ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: { planId: number }): Promise<SubscriptionView> {
      requireAdmin(actor, 'confirm the subscription')
      return em.transactional(async (tx) => {
        const subscription = await requireSubscription(tx, actor.tenantId)
        if (subscription.plan.id !== input.planId) {
          throw SubscriptionPlanMismatch(`The subscription is for plan ${subscription.plan.id}, not ${input.planId}`, { plan_id: subscription.plan.id })
        }
        await settle(tx, actor, subscription)
        await tx.flush()
        return loadSubscriptionView(tx, subscription)
      })
    },

    /** The tenant's one free trial, on a trial plan, for the plan's trial_days. */
    async startTrial ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, input: { planId: number }): Promise<SubscriptionView> {
      requireAdmin(actor, 'start a trial')
      const plan = await findActivePlan(em, input.planId)
      if (!plan.isTrial || plan.trialDays < 1) throw PlanNotTrial(`${plan.name} has no free trial; choose a trial plan`, { plan_id: plan.id })
      return retryOnce(() => em.transactional(async (tx) => {
        const existing = await lockSubscription(tx, actor.tenantId)
        if (existing?.trialStartedAt != null) {
          throw TrialAlreadyUsed(`This company's free trial started on ${day(existing.trialStartedAt)}; a company gets one trial`)
        }
        const now = new Date()
        const ends = new Date(now.getTime() + plan.trialDays * DAY_MS)
        const subscription = write(tx, actor, existing, 'trialing', {
          plan: tx.getReference(Plan, plan.id), billingCycle: 'monthly', ...defaultQuantities(plan), currency: plan.currency,
          amount: 0, amountDue: 0, paymentReference: null, currentPeriodStart: now, currentPeriodEnd: ends,
          trialStartedAt: now, trialEndsAt: ends, activatedAt: null, endedAt: null
        })
        record(tx, actor, subscription, 'subscription.trial_started', `${who(actor)} started the ${plan.trialDays}-day ${plan.name} trial, until ${day(ends)}`)
        await tx.flush()
        return loadSubscriptionView(tx, subscription)
      }))
    },

    /** For the trial sweeper: the caller has claimed (locked) the row. */
    expireTrial (tx: EntityManager, actor: Actor, subscription: Subscription): void {
      write(tx, actor, subscription, 'expired', { endedAt: new Date() })
      record(tx, actor, subscription, 'subscription.trial_expired', `The free trial ended on ${day(subscription.trialEndsAt ?? new Date())}`)
    }
  }
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>
