import { Type } from 'typebox'
import { FiniteNumber, Int4, ref, Success } from './common.ts'
import { MAX_STORAGE_GB, MAX_USERS } from '../plugins/app/plans/recommendation-request.ts'

const money = (description: string) => FiniteNumber({ minimum: 0, description: `${description}, in major units of \`currency\` (at most its decimals)` })
const count = (description: string) => Int4({ minimum: 0, description })

export const PlanItem = Type.Object({
  id: Int4(),
  code: Type.String({ description: 'Stable identifier: trial, starter, business, enterprise' }),
  name: Type.String(),
  description: Type.String(),
  is_trial: Type.Boolean(),
  trial_days: count('Length of the trial; 0 for paid plans'),
  currency: Type.String({ description: 'ISO 4217, e.g. EUR' }),
  base_price_monthly: money('Monthly price with the included users'),
  included_users: count('Users included in the base price'),
  extra_user_price_monthly: money('Per user beyond the included users, per month'),
  storage_limit: count('GB of storage included'),
  storage_overage_price: money('Per GB beyond the included storage, per month'),
  max_users: count('Most users the plan can have'),
  max_instances: count('Most ERP instances'),
  max_workers: count('Most workers per instance'),
  staging_counts_in_limit: Type.Boolean({ description: 'Whether staging copies take one of `max_instances` (docs/staging.md)' }),
  annual_discount_percentage: FiniteNumber({ minimum: 0, maximum: 100, description: 'Discount on yearly billing, e.g. 15 for 15%' }),
  features: Type.Array(Type.String(), { description: 'Selling points, in display order' })
}, { $id: 'Plan', description: 'A plan of the catalog' })

export const PlansResponse = Success({
  plans: Type.Array(ref(PlanItem), { description: 'Active plans, in display order (sequence)' })
}, { $id: 'PlansResponse' })

export const DemoPlanQuery = Type.Object({
  plan_id: Type.Optional(Int4({ minimum: 1, description: 'An active plan id; without it, the trial plan. Not a positive integer: 400; unknown or retired: 404 PLAN_NOT_FOUND' }))
})

export const PlanResponse = Success({ plan: ref(PlanItem) }, { $id: 'PlanResponse' })

export const RecommendationQuery = Type.Object({
  users: Type.Optional(Type.String({
    maxLength: 32,
    description: `Users needed; default 1. A decimal number: fractions are rounded down, then anything below 1 becomes 1. Not a number (abc, NaN, Infinity, hex) or above ${MAX_USERS}: 400 VALIDATION_FAILED naming \`users\`.`
  })),
  storage: Type.Optional(Type.String({
    maxLength: 32,
    description: `GB needed beyond the plan's included storage; default 0. A decimal number: fractions are rounded up to whole GB (billing is per GB), negatives become 0. Not a number or above ${MAX_STORAGE_GB}: 400 VALIDATION_FAILED naming \`storage\`.`
  })),
  billing_cycle: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], {
    description: '`yearly` (exactly that) or `monthly`, the default. Any other value, repeated or not, is treated as `monthly`: never a 400.'
  }))
})

export const PricingItem = Type.Object({
  plan_id: Int4(),
  plan_name: Type.String(),
  users: count('Users priced'),
  storage: count('GB requested beyond the included storage'),
  storage_limit: count('GB included in the plan'),
  extra_storage: count('GB billed at the overage price'),
  storage_overage_price: money('Per extra GB per month'),
  extra_storage_monthly: money('extra_storage x storage_overage_price'),
  extra_storage_annual: money('12 x extra_storage_monthly less the annual discount'),
  base_monthly: money('Base price plus the users beyond the included ones'),
  base_annual: money('12 x base_monthly less the annual discount'),
  monthly_total: money('base_monthly + extra_storage_monthly'),
  annual_total: money('base_annual + extra_storage_annual'),
  annual_saving: money('12 x monthly_total - annual_total'),
  annual_saving_percentage: FiniteNumber({ minimum: 0, maximum: 100, description: 'annual_saving as a share of 12 x monthly_total, two decimals' }),
  effective_monthly_annual: money('annual_total / 12'),
  billing_cycle: Type.Union([Type.Literal('monthly'), Type.Literal('yearly')]),
  total: money('monthly_total or annual_total, by billing_cycle'),
  currency: Type.String()
}, { $id: 'Pricing', description: 'A price quote; every amount is rounded half up to the currency' })

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([Type.Null(), schema], { description })

export const RecommendationResponse = Success({
  configuration_id: Type.Union([Int4(), Type.Literal(false)], { description: "The company's saved plan configuration, or false" }),
  requested: Type.Object({
    users: Int4({ minimum: 1 }),
    storage: Int4({ minimum: 0 }),
    billing_cycle: Type.Union([Type.Literal('monthly'), Type.Literal('yearly')])
  }, { description: 'The query after normalisation' }),
  trial: Type.Object({
    available: Type.Boolean({ description: 'A trial plan is offered and this company has not started its one trial' }),
    plan: nullable(ref(PlanItem), 'The trial plan; null when none is offered'),
    pricing: nullable(ref(PricingItem), 'The trial plan priced for the request; null when none is offered')
  }),
  demo: Type.Object({
    available: Type.Boolean({ description: 'Same as trial.available' }),
    plan: nullable(ref(PlanItem), 'The trial plan; null when none is offered')
  }),
  recommended_plan: nullable(Type.Object({
    ...PlanItem.properties,
    fits: Type.Boolean({ description: 'false when no paid plan takes this many users: then the plan with the most users is recommended' })
  }), 'The cheapest active paid plan for the request (ties: lower sequence); null when no paid plan is offered'),
  pricing: nullable(ref(PricingItem), 'The recommended plan priced for the request')
}, { $id: 'RecommendationResponse' })
