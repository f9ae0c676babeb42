import type { UserActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import { tenantSql } from '../../../lib/tenant-sql.ts'
import { toPlanView, type PlanRecord, type PlanView } from './plan.view.ts'
import { PlanNotFound } from './plans.errors.ts'
import { ACTIVE_PLANS, TENANT_PLAN_STATE, toPlanRecord, type PlanRow, type TenantPlanStateRow } from './plans.queries.ts'
import { buildRecommendation, type Recommendation } from './recommendation.ts'
import { normaliseRecommendationQuery, queryValidationError, type RawRecommendationQuery } from './recommendation-request.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

/**
 * The plan catalog, read with one prepared statement (a handful of rows, so
 * lookups filter the list in memory). Plans are reference data: no tenant.
 */
export function createPlansService ({ sql }: { sql: Sql }) {
  async function list (): Promise<PlanRecord[]> {
    return (await sql<PlanRow>(ACTIVE_PLANS)).map(toPlanRecord)
  }

  /** The catalog the recommendation last read, frozen, under the version it was read at. */
  let latest: { version: string, plans: readonly PlanRecord[] } | undefined

  /** The catalog at `version`: the copy in hand while it is current, else a fresh read (never older than `version`). */
  async function catalogAt (version: string): Promise<readonly PlanRecord[]> {
    if (latest?.version !== version) {
      const rows = await sql<PlanRow>(ACTIVE_PLANS)
      const plans = rows.map((row) => Object.freeze({ ...toPlanRecord(row), features: Object.freeze([...row.features]) as string[] }))
      latest = { version: rows[0]?.catalog_version ?? '', plans }
    }
    return latest.plans
  }

  async function findActive (id: number): Promise<PlanRecord | null> {
    return (await list()).find((plan) => plan.id === id) ?? null
  }

  async function findTrial (): Promise<PlanRecord | null> {
    return (await list()).find((plan) => plan.isTrial) ?? null
  }

  return {
    /** Active plans in sequence order, as plain records (`quote()` takes them). */
    list,
    /** An active plan by id, or null (unknown or retired). */
    findActive,
    /** Like findActive, but a missing plan is a 404 PLAN_NOT_FOUND. */
    async getActive (id: number): Promise<PlanRecord> {
      const plan = await findActive(id)
      if (plan === null) throw PlanNotFound(`Plan ${id} does not exist or is no longer offered`)
      return plan
    },
    /** The active trial plan (the first by sequence), or null. */
    findTrial,

    /** GET /api/plans */
    async catalog (): Promise<PlanView[]> {
      return (await list()).map(toPlanView)
    },

    /** GET /api/demo/plan: the given active plan, or the trial plan. */
    async demoPlan (planId?: number): Promise<PlanView> {
      const plan = planId === undefined ? await findTrial() : await findActive(planId)
      if (plan === null) throw PlanNotFound(planId === undefined ? 'No trial plan is offered at the moment' : `Plan ${planId} does not exist or is no longer offered`)
      return toPlanView(plan)
    },

    /**
     * GET /api/subscription/recommendation: one prepared, tenant-bound
     * statement (configuration id, trial used, catalog version), plus the
     * catalog statement only when the catalog changed since it was last read;
     * then pure computation. Pricing is never computed from a stale catalog.
     */
    async recommend ({ actor }: Pick<CallScope<UserActor>, 'actor'>, query: RawRecommendationQuery): Promise<Recommendation> {
      const normalised = normaliseRecommendationQuery(query)
      if (!normalised.ok) throw queryValidationError(normalised.errors)
      const [state] = await tenantSql(sql, actor.tenantId)<TenantPlanStateRow>(TENANT_PLAN_STATE)
      if (state === undefined) throw new Error('The tenant plan state statement returned no row')
      return buildRecommendation(await catalogAt(state.catalog_version), {
        configurationId: state.configuration_id,
        trialUsed: state.trial_used
      }, normalised.request)
    }
  }
}

export type PlansService = ReturnType<typeof createPlansService>
