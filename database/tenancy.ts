import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * Tenant scoping: one MikroORM filter, on by default, for every tenant-owned
 * entity. It has a required parameter, so a query on a tenant-owned entity with
 * no tenant set throws instead of silently reading every tenant's rows.
 * Code that must cross tenants (login by e-mail, signup, seeding, jobs) says so
 * explicitly with `{ filters: { [TENANT_FILTER]: false } }`.
 */
export const TENANT_FILTER = 'tenant'

/** Entities whose rows belong to one tenant, and the property that says which. */
const tenantColumn: Record<string, string> = {
  Tenant: 'id',
  User: 'tenant',
  PortalSession: 'tenant',
  PasswordReset: 'tenant',
  EmailChange: 'tenant',
  LoginChallenge: 'tenant',
  UserTwoFactor: 'tenant',
  RecoveryCode: 'tenant',
  Instance: 'tenant',
  Backup: 'tenant',
  InstanceUpgrade: 'tenant',
  AddonSource: 'tenant',
  BackupDownloadToken: 'tenant',
  BackupSchedule: 'tenant',
  Activity: 'tenant',
  Invitation: 'tenant',
  Ticket: 'tenant',
  TicketMessage: 'tenant',
  TenantSettings: 'tenant',
  PlanConfiguration: 'tenant',
  Subscription: 'tenant',
  Payment: 'tenant',
  HandoffCode: 'tenant',
  ErpCredentials: 'tenant',
  InstanceModule: 'tenant',
  WebhookEndpoint: 'tenant',
  WebhookEvent: 'tenant',
  WebhookDelivery: 'tenant',
  GrantAccess: 'tenant',
  AgentToolCall: 'tenant'
}

export interface TenantFilterParams {
  tenantId: string
}

export const tenantFilter = {
  name: TENANT_FILTER,
  default: true,
  entity: Object.keys(tenantColumn),
  cond: (params: TenantFilterParams, _type: string, _em: unknown, _options: unknown, entityName?: string) => {
    const column = entityName === undefined ? undefined : tenantColumn[entityName]
    if (column === undefined) throw new Error(`Entity ${entityName} is not tenant-owned`)
    if (typeof params?.tenantId !== 'string' || params.tenantId === '') {
      throw new Error('Tenant filter used without a tenant id')
    }
    return { [column]: params.tenantId }
  }
}

/** A fresh EntityManager that can only see the given tenant's rows. */
export function scopedEntityManager (root: EntityManager, tenantId: string): EntityManager {
  const em = root.fork()
  em.setFilterParams(TENANT_FILTER, { tenantId } satisfies TenantFilterParams)
  return em
}

/** Options that switch scoping off for one query; use only where crossing tenants is the point. */
export const ACROSS_TENANTS = { filters: { [TENANT_FILTER]: false } } as const

/**
 * Locks the tenant's row until the transaction ends. Rules that count across a
 * tenant (the last admin, seats left) take it first, so two changes racing on
 * the same count are serialised.
 */
export async function lockTenant (tx: EntityManager, tenantId: string): Promise<void> {
  await tx.execute('SELECT 1 FROM tenants WHERE id = ? FOR UPDATE', [tenantId])
}
