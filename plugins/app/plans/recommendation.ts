import { toPlanView, type PlanRecord, type PlanView } from './plan.view.ts'
import { quote, toPricingView, type PriceRequest, type PricingView, type Quote } from './pricing.ts'

export interface TenantPlanState {
  /** The tenant's stored PlanConfiguration, if any */
  configurationId: number | null
  /** The tenant's subscription has trial_started_at: its one trial is spent */
  trialUsed: boolean
}

export interface Recommendation {
  configuration_id: number | false
  requested: { users: number, storage: number, billing_cycle: PriceRequest['billingCycle'] }
  trial: { available: boolean, plan: PlanView | null, pricing: PricingView | null }
  demo: { available: boolean, plan: PlanView | null }
  recommended_plan: (PlanView & { fits: boolean }) | null
  pricing: PricingView | null
}

interface Choice { plan: PlanRecord, quote: Quote, fits: boolean }

/**
 * The cheapest active paid plan whose max_users takes the request, by the
 * requested cycle's total; `plans` come in sequence order and only a strictly
 * cheaper plan displaces an earlier one, so ties go to the lower sequence.
 * When none fits: the paid plan with the most users (then the cheapest), with
 * `fits: false`. Null only when there is no active paid plan at all.
 * Totals are compared in minor units, so the catalog must share one currency.
 */
export function pickPlan (plans: readonly PlanRecord[], request: PriceRequest): Choice | null {
  let best: Choice | null = null
  for (const plan of plans) {
    if (plan.isTrial) continue
    const candidate = { plan, quote: quote(plan, request), fits: request.users <= plan.maxUsers }
    if (best === null || better(candidate, best)) best = candidate
  }
  return best
}

function better (a: Choice, b: Choice): boolean {
  if (a.fits !== b.fits) return a.fits
  if (!a.fits && a.plan.maxUsers !== b.plan.maxUsers) return a.plan.maxUsers > b.plan.maxUsers
  return a.quote.total < b.quote.total
}

export function buildRecommendation (plans: readonly PlanRecord[], state: TenantPlanState, request: PriceRequest): Recommendation {
  const trialPlan = plans.find((plan) => plan.isTrial)
  const trialView = trialPlan === undefined ? null : toPlanView(trialPlan)
  const trialAvailable = trialPlan !== undefined && !state.trialUsed
  const pick = pickPlan(plans, request)
  return {
    configuration_id: state.configurationId ?? false,
    requested: { users: request.users, storage: request.storage, billing_cycle: request.billingCycle },
    trial: {
      available: trialAvailable,
      plan: trialView,
      pricing: trialPlan === undefined ? null : toPricingView(quote(trialPlan, request))
    },
    demo: { available: trialAvailable, plan: trialView },
    recommended_plan: pick === null ? null : { ...toPlanView(pick.plan), fits: pick.fits },
    pricing: pick === null ? null : toPricingView(pick.quote)
  }
}
