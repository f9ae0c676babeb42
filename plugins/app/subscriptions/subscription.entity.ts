import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Plan } from '../plans/plan.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { BILLING_CYCLES } from './plan-configuration.entity.ts'

export const SUBSCRIPTION_STATUSES = ['trialing', 'pending_payment', 'active', 'past_due', 'expired', 'cancelled'] as const
export type SubscriptionStatus = typeof SUBSCRIPTION_STATUSES[number]

/**
 * A tenant's subscription: one row per tenant that moves through a checked
 * state machine. Quantities are what was bought and set the tenant's limits.
 * Money in integer minor units of `currency`.
 */
const SubscriptionSchema = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).unique(),
    plan: () => p.manyToOne(Plan),
    status: p.enum(SUBSCRIPTION_STATUSES),
    billingCycle: p.enum(BILLING_CYCLES),
    users: p.integer(),
    storage: p.integer(),
    workers: p.integer(),
    instances: p.integer(),
    currency: p.string().length(3),
    /** What the current period costs */
    amount: p.bigint('number').check('amount >= 0'),
    /** What is still to be paid before activation; 0 once paid */
    amountDue: p.bigint('number').default(0).check('amount_due >= 0'),
    /** Quoted to the payment provider and printed on the invoice */
    paymentReference: p.string().length(64).unique().nullable(),
    currentPeriodStart: timestamp().nullable(),
    /** The renewal date */
    currentPeriodEnd: timestamp().nullable(),
    /** Set once, when the tenant's one trial starts; never cleared */
    trialStartedAt: timestamp().nullable(),
    trialEndsAt: timestamp().nullable(),
    activatedAt: timestamp().nullable(),
    endedAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  indexes: [
    { properties: ['status', 'trialEndsAt'] }
  ]
})

export class Subscription extends SubscriptionSchema.class {}
SubscriptionSchema.setClass(Subscription)
