import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, updatedAt } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * A tenant's company details and notification preferences, one row per tenant
 * (its primary key is the tenant). The company name itself is `tenants.name`.
 */
const TenantSettingsSchema = defineEntity({
  name: 'TenantSettings',
  tableName: 'tenant_settings',
  properties: {
    tenant: () => p.oneToOne(Tenant).primary(),
    address: p.string().length(500).nullable(),
    phone: p.string().length(40).nullable(),
    email: p.string().length(254).nullable(),
    vatId: p.string().length(40).nullable(),
    /** ISO 3166-1 alpha-2 */
    country: p.string().length(2).nullable(),
    /** ISO 4217 */
    currency: p.string().length(3).default('EUR'),
    /** IANA time zone */
    timezone: p.string().length(64).default('UTC'),
    /** BCP 47 language tag */
    language: p.string().length(16).default('en'),
    notifyInstanceEvents: p.boolean().default(true),
    notifyBilling: p.boolean().default(true),
    notifyTickets: p.boolean().default(true),
    notifyWeeklyReport: p.boolean().default(false),
    /** Every member must sign in with a second factor (and enrol one first). */
    requireTwoFactor: p.boolean().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class TenantSettings extends TenantSettingsSchema.class {}
TenantSettingsSchema.setClass(TenantSettings)
