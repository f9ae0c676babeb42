import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const INSTANCE_BACKENDS = ['kubernetes', 'docker'] as const
export const INSTANCE_STATES = ['provisioning', 'running', 'starting', 'stopping', 'stopped', 'restarting', 'error', 'deleting', 'deleted'] as const
export type InstanceState = typeof INSTANCE_STATES[number]

/**
 * A hosted ERP instance. The instances issue adds provisioning, lifecycle and
 * resource columns; this is what the portal core (invitations, dashboard) needs.
 */
const InstanceSchema = defineEntity({
  name: 'Instance',
  tableName: 'instances',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    name: p.string().length(100),
    subdomain: p.string().length(40).unique(),
    erpVersion: p.string().length(20),
    backend: p.enum(INSTANCE_BACKENDS),
    state: p.enum(INSTANCE_STATES).default('provisioning'),
    statusMessage: p.string().length(500).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class Instance extends InstanceSchema.class {}
InstanceSchema.setClass(Instance)
