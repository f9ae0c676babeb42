import { randomUUID } from 'node:crypto'
import { defineEntity, p } from '@mikro-orm/core'

export const TENANT_STATUSES = ['active', 'suspended'] as const
export type TenantStatus = typeof TENANT_STATUSES[number]

const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    name: p.string().length(200),
    subdomain: p.string().length(40).unique(),
    status: p.enum(TENANT_STATUSES).default('active'),
    createdAt: p.datetime().columnType('timestamptz').onCreate(() => new Date()),
    updatedAt: p.datetime().columnType('timestamptz').onCreate(() => new Date()).onUpdate(() => new Date())
  }
})

export class Tenant extends TenantSchema.class {}
TenantSchema.setClass(Tenant)
