import { Type } from 'typebox'
import { BILLING_CYCLES } from '../plugins/app/subscriptions/plan-configuration.entity.ts'
import { SUBSCRIPTION_STATUSES } from '../plugins/app/subscriptions/subscription.entity.ts'
import { FiniteNumber, Id, Int4, ref, Success } from './common.ts'
import { PricingItem } from './plans.ts'

// `enum` (not a union of literals) so that a wrong value's error lists the allowed ones.
export const BillingCycle = Type.Enum(BILLING_CYCLES, { description: 'monthly or yearly' })
export const SubscriptionStatus = Type.Enum(SUBSCRIPTION_STATUSES, { description: 'trialing, pending_payment, active, past_due, expired or cancelled' })

const PlanId = Int4({ minimum: 1, description: 'A plan id (GET /api/plans)' })
const DateTime = Type.String({ format: 'date-time' })
const NullableDateTime = Type.Union([DateTime, Type.Null()])
const Money = (description: string) => FiniteNumber({ description: `${description}, in major units of the currency (49.9 = 49.90 EUR)` })

export const PlanRef = Type.Object({ id: Int4(), code: Type.String(), name: Type.String() })

export const Configuration = Type.Object({
  id: Int4(),
  plan: PlanRef,
  users: Int4(),
  storage: Int4({ description: 'Extra GB beyond the storage the plan includes' }),
  workers: Int4(),
  instances: Int4(),
  billing_cycle: BillingCycle,
  updated_at: DateTime
}, { $id: 'Configuration', description: 'The plan and quantities chosen ahead of checkout' })

export const SubscriptionItem = Type.Object({
  id: Id,
  plan: PlanRef,
  status: SubscriptionStatus,
  billing_cycle: BillingCycle,
  users: Int4(),
  storage: Int4({ description: 'Extra GB beyond the storage the plan includes' }),
  workers: Int4(),
  instances: Int4(),
  currency: Type.String({ description: 'ISO 4217' }),
  amount: Money('What the billing cycle costs'),
  amount_due: Money('Still to be paid before activation; 0 once paid'),
  payment_reference: Type.Union([Type.String(), Type.Null()], { description: 'Quote it when paying; null when nothing is to be paid' }),
  renewal_date: Type.Union([DateTime, Type.Null()], { description: 'End of the current period (the end of the trial while trialing)' }),
  current_period_start: NullableDateTime,
  trial_ends_at: NullableDateTime,
  activated_at: NullableDateTime,
  configuration: Type.Union([ref(Configuration), Type.Null()])
}, { $id: 'Subscription' })

export const SubscriptionResponse = Success({ subscription: ref(SubscriptionItem) }, { $id: 'SubscriptionResponse' })
export const SubscribeResponse = Success({ subscription: ref(SubscriptionItem), quote: ref(PricingItem) }, { $id: 'SubscribeResponse' })
export const SelectPlanResponse = Success({ configuration: ref(Configuration), quote: ref(PricingItem) }, { $id: 'SelectPlanResponse' })

const Count = (minimum: number, description: string) => Int4({ minimum, maximum: 1_000_000, description })

export const SelectPlanBody = Type.Object({
  plan_id: PlanId,
  users: Count(1, 'At least 1, at most the plan\'s max_users'),
  storage: Count(0, 'Extra GB beyond the included storage, 0 or more'),
  workers: Count(1, 'At least 1, at most the plan\'s max_workers'),
  instances: Count(1, 'At least 1, at most the plan\'s max_instances'),
  billing_cycle: BillingCycle
}, { additionalProperties: false })

export const SubscribeBody = Type.Object({ plan_id: PlanId, billing_cycle: BillingCycle }, { additionalProperties: false })
export const PlanIdBody = Type.Object({ plan_id: PlanId }, { additionalProperties: false })
