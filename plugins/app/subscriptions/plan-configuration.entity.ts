import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, updatedAt } from '../../../database/columns.ts'
import { Plan } from '../plans/plan.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const BILLING_CYCLES = ['monthly', 'yearly'] as const
export type BillingCycle = typeof BILLING_CYCLES[number]

/** The plan and quantities a tenant chose ahead of checkout; one per tenant, changed by choosing again. */
const PlanConfigurationSchema = defineEntity({
  name: 'PlanConfiguration',
  tableName: 'plan_configurations',
  properties: {
    id: p.integer().primary().autoincrement(),
    tenant: () => p.manyToOne(Tenant).unique(),
    plan: () => p.manyToOne(Plan),
    users: p.integer(),
    /** Extra GB beyond the plan's included storage */
    storage: p.integer(),
    workers: p.integer(),
    instances: p.integer(),
    billingCycle: p.enum(BILLING_CYCLES),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class PlanConfiguration extends PlanConfigurationSchema.class {}
PlanConfigurationSchema.setClass(PlanConfiguration)
