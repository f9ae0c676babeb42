import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Plan } from '../../plugins/app/plans/plan.entity.ts'

export type PlanFields = Omit<Plan, 'id' | 'createdAt' | 'updatedAt'>

/** A paid plan with round numbers: 49.00 EUR a month for 3 users, 10.00 per extra user, 0.50 per extra GB, 10% off yearly. */
export const PAID_PLAN: Omit<PlanFields, 'code'> = {
  name: 'Test Business',
  description: 'A plan made by a test',
  active: true,
  isTrial: false,
  trialDays: 0,
  currency: 'EUR',
  basePriceMonthly: 4900,
  includedUsers: 3,
  extraUserPriceMonthly: 1000,
  storageLimitGb: 10,
  storageOveragePrice: 50,
  maxUsers: 20,
  maxInstances: 3,
  maxWorkers: 4,
  stagingCountsInLimit: true,
  annualDiscountBps: 1000,
  features: ['Test feature'],
  sequence: 500
}

/**
 * Inserts a plan through the entity, with a unique code, so tests do not
 * depend on the seeded catalog (present or not in the template).
 */
export async function insertPlan (app: FastifyInstance, overrides: Partial<PlanFields> = {}): Promise<Plan> {
  const em = app.orm.em.fork()
  const plan = em.create(Plan, { ...PAID_PLAN, code: `t-${randomBytes(6).toString('hex')}`, ...overrides } as Plan)
  await em.flush()
  return plan
}

export function insertTrialPlan (app: FastifyInstance, overrides: Partial<PlanFields> = {}): Promise<Plan> {
  return insertPlan(app, { name: 'Test Trial', isTrial: true, trialDays: 14, basePriceMonthly: 0, extraUserPriceMonthly: 0, storageOveragePrice: 0, annualDiscountBps: 0, ...overrides })
}

/** Row counts of everything billing can touch in one tenant, to compare before and after. */
export async function billingSnapshot (app: FastifyInstance, tenantId: string): Promise<string> {
  const rows = await Promise.all([
    app.sql({ text: 'SELECT id, status, plan_id, amount, amount_due, payment_reference, current_period_end, updated_at FROM subscriptions WHERE tenant_id = $1', values: [tenantId] }),
    app.sql({ text: 'SELECT id, status, amount, failure_reason FROM payments WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }),
    app.sql({ text: 'SELECT id, plan_id, users, updated_at FROM plan_configurations WHERE tenant_id = $1', values: [tenantId] }),
    app.sql({ text: 'SELECT count(*)::int AS n FROM activities WHERE tenant_id = $1', values: [tenantId] })
  ])
  return JSON.stringify(rows)
}

export async function activityTypes (app: FastifyInstance, tenantId: string): Promise<string[]> {
  const rows = await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE tenant_id = $1 ORDER BY id', values: [tenantId] })
  return rows.map((row) => row.type)
}

/** An active subscription to the first plan, free of charge, with `instances` slots and `workers` workers (5 users). */
export async function activeSubscription (app: FastifyInstance, tenantId: string, size: { instances: number, workers: number }): Promise<void> {
  await app.sql({
    text: `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount, amount_due, activated_at, created_at, updated_at)
      SELECT gen_random_uuid(), $1, id, 'active', 'monthly', 5, 0, $2, $3, currency, 0, 0, now(), now(), now() FROM plans ORDER BY id LIMIT 1`,
    values: [tenantId, size.workers, size.instances]
  })
}
