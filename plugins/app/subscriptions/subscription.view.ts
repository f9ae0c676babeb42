import type { EntityManager } from '@mikro-orm/postgresql'
import { minorDigits, toMajor } from '../../../lib/money.ts'
import { Plan } from '../plans/plan.entity.ts'
import { PlanConfiguration, type BillingCycle } from './plan-configuration.entity.ts'
import type { Subscription, SubscriptionStatus } from './subscription.entity.ts'

export interface PlanRef { id: number, code: string, name: string }

export interface ConfigurationView {
  id: number
  plan: PlanRef
  users: number
  storage: number
  workers: number
  instances: number
  billing_cycle: BillingCycle
  updated_at: string
}

export interface SubscriptionView {
  id: string
  plan: PlanRef
  status: SubscriptionStatus
  billing_cycle: BillingCycle
  users: number
  storage: number
  workers: number
  instances: number
  currency: string
  amount: number
  amount_due: number
  payment_reference: string | null
  renewal_date: string | null
  current_period_start: string | null
  trial_ends_at: string | null
  activated_at: string | null
  configuration: ConfigurationView | null
}

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null

/** 4900 EUR-cents -> "49.00 EUR", for activity titles and messages. */
export function formatMoney (minor: number, currency: string): string {
  return `${toMajor(minor, currency).toFixed(minorDigits(currency))} ${currency}`
}

export const planRef = (plan: Plan): PlanRef => ({ id: plan.id, code: plan.code, name: plan.name })

export function toConfigurationView (configuration: PlanConfiguration, plan: Plan): ConfigurationView {
  return {
    id: configuration.id,
    plan: planRef(plan),
    users: configuration.users,
    storage: configuration.storage,
    workers: configuration.workers,
    instances: configuration.instances,
    billing_cycle: configuration.billingCycle,
    updated_at: configuration.updatedAt.toISOString()
  }
}

/** The subscription as the API shows it: money in major units, its plan and the stored configuration loaded. */
export async function loadSubscriptionView (em: EntityManager, subscription: Subscription): Promise<SubscriptionView> {
  const plan = await em.findOneOrFail(Plan, subscription.plan.id)
  const configuration = await em.findOne(PlanConfiguration, { tenant: subscription.tenant.id })
  const configurationPlan = configuration === null ? null : await em.findOneOrFail(Plan, configuration.plan.id)
  const { currency } = subscription
  return {
    id: subscription.id,
    plan: planRef(plan),
    status: subscription.status,
    billing_cycle: subscription.billingCycle,
    users: subscription.users,
    storage: subscription.storage,
    workers: subscription.workers,
    instances: subscription.instances,
    currency,
    amount: toMajor(subscription.amount, currency),
    amount_due: toMajor(subscription.amountDue, currency),
    payment_reference: subscription.paymentReference ?? null,
    renewal_date: iso(subscription.currentPeriodEnd),
    current_period_start: iso(subscription.currentPeriodStart),
    trial_ends_at: iso(subscription.trialEndsAt),
    activated_at: iso(subscription.activatedAt),
    configuration: configuration === null || configurationPlan === null ? null : toConfigurationView(configuration, configurationPlan)
  }
}
