import { defineEntity, p } from '@mikro-orm/core'
import { uuidPrimaryKey, createdAt, updatedAt } from '../../../database/columns.ts'

export const TENANT_STATUSES = ['active', 'suspended'] as const
export type TenantStatus = typeof TENANT_STATUSES[number]

const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  properties: {
    id: uuidPrimaryKey(),
    name: p.string().length(200),
    subdomain: p.string().length(40).unique(),
    status: p.enum(TENANT_STATUSES).default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class Tenant extends TenantSchema.class {}
TenantSchema.setClass(Tenant)
