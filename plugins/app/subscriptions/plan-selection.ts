import type { EntityManager } from '@mikro-orm/postgresql'
import { Plan } from '../plans/plan.entity.ts'
import type { PlanConfiguration } from './plan-configuration.entity.ts'
import { PlanNotFound } from '../plans/plans.errors.ts'
import { PlanIsTrial, PlanLimitExceeded, PlanQuantityInvalid } from './subscriptions.errors.ts'

export interface Quantities {
  users: number
  /** Whole GB beyond the plan's included storage */
  storage: number
  workers: number
  instances: number
}

const MINIMUMS: Readonly<Record<keyof Quantities, number>> = { users: 1, storage: 0, workers: 1, instances: 1 }
const MAXIMUMS = { users: 'maxUsers', instances: 'maxInstances', workers: 'maxWorkers' } as const

/** An offered plan (inactive plans are not offered: 404 like an unknown id). */
export async function findActivePlan (em: EntityManager, planId: number): Promise<Plan> {
  const plan = await em.findOne(Plan, { id: planId, active: true })
  if (plan === null) throw PlanNotFound(`No plan with id ${planId} is offered`, { plan_id: planId })
  return plan
}

/** A plan that can be configured and paid for: trial plans are started with the demo route instead. */
export async function findCheckoutPlan (em: EntityManager, planId: number): Promise<Plan> {
  const plan = await findActivePlan(em, planId)
  if (plan.isTrial) throw PlanIsTrial(`${plan.name} is a trial plan: it cannot be bought; start it with POST /api/subscription/demo`, { plan_id: planId })
  return plan
}

/** Whole numbers, at least the minimum, at most what the plan allows. */
export function assertQuantities (plan: Plan, quantities: Quantities): void {
  for (const field of Object.keys(MINIMUMS) as Array<keyof Quantities>) {
    const value = quantities[field]
    const minimum = MINIMUMS[field]
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw PlanQuantityInvalid(`${field} must be a whole number of at least ${minimum}`, { field, minimum, requested: value })
    }
  }
  for (const [field, limit] of Object.entries(MAXIMUMS) as Array<[keyof typeof MAXIMUMS, typeof MAXIMUMS[keyof typeof MAXIMUMS]]>) {
    const maximum = plan[limit]
    if (quantities[field] > maximum) {
      throw PlanLimitExceeded(`The ${plan.name} plan allows at most ${maximum} ${field}; ${quantities[field]} requested`, { field, maximum, requested: quantities[field] })
    }
  }
}

/** What a subscription gets when no configuration was stored for its plan: the included users, no extra storage, one instance, one worker. */
export function defaultQuantities (plan: Plan): Quantities {
  return { users: Math.max(1, plan.includedUsers), storage: 0, workers: 1, instances: 1 }
}

/** The stored configuration's quantities if it is for this plan, else the defaults. */
export function quantitiesFor (plan: Plan, configuration: PlanConfiguration | null): Quantities {
  if (configuration === null || configuration.plan.id !== plan.id) return defaultQuantities(plan)
  const { users, storage, workers, instances } = configuration
  return { users, storage, workers, instances }
}
