import type { EntityManager } from '@mikro-orm/postgresql'
import { CompanyNotFound } from './settings.errors.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { TenantSettings } from './tenant-settings.entity.ts'

export interface CompanySettingsView {
  name: string
  address: string | null
  phone: string | null
  email: string | null
  vat_id: string | null
  country: string | null
  currency: string
  timezone: string
  language: string
}

export interface NotificationSettingsView {
  instance_events: boolean
  billing: boolean
  tickets: boolean
  weekly_report: boolean
}

export interface SettingsView {
  company: CompanySettingsView
  notifications: NotificationSettingsView
  security: { require_two_factor: boolean }
}

/**
 * What a tenant without a settings row gets: the entity's column defaults
 * (a test keeps the two in step).
 */
export const SETTINGS_DEFAULTS = {
  address: null,
  phone: null,
  email: null,
  vatId: null,
  country: null,
  currency: 'EUR',
  timezone: 'UTC',
  language: 'en',
  notifyInstanceEvents: true,
  notifyBilling: true,
  notifyTickets: true,
  notifyWeeklyReport: false,
  requireTwoFactor: false
} as const

type SettingsValues = { -readonly [K in keyof typeof SETTINGS_DEFAULTS]: TenantSettings[K] }

export function toSettingsView (companyName: string, row: SettingsValues | null): SettingsView {
  const s = row ?? SETTINGS_DEFAULTS
  return {
    company: {
      name: companyName,
      address: s.address ?? null,
      phone: s.phone ?? null,
      email: s.email ?? null,
      vat_id: s.vatId ?? null,
      country: s.country ?? null,
      currency: s.currency,
      timezone: s.timezone,
      language: s.language
    },
    notifications: {
      instance_events: s.notifyInstanceEvents,
      billing: s.notifyBilling,
      tickets: s.notifyTickets,
      weekly_report: s.notifyWeeklyReport
    },
    security: { require_two_factor: s.requireTwoFactor }
  }
}

/**
 * A tenant's settings as the API shows them, with defaults when it has never
 * saved any. `em` must be scoped to that tenant (`request.em`, or
 * `scopedEntityManager(orm.em, tenantId)` in jobs); otherwise the tenant
 * filter throws, or the tenant is not found.
 */
export async function loadSettingsView (em: EntityManager, tenantId: string): Promise<SettingsView> {
  const [tenant, row] = await Promise.all([
    em.findOne(Tenant, { id: tenantId }),
    em.findOne(TenantSettings, { tenant: tenantId })
  ])
  if (tenant === null) throw CompanyNotFound()
  return toSettingsView(tenant.name, row)
}
