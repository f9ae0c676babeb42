import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey, timestamp, updatedAt } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { ErpModule } from '../modules/erp-module.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const INSTANCE_MODULE_STATES = ['queued', 'installing', 'installed', 'failed', 'uninstalling', 'uninstalled'] as const
export type InstanceModuleState = typeof INSTANCE_MODULE_STATES[number]

/** A catalog module assigned to an instance, and where its install through the ERP stands. */
const InstanceModuleSchema = defineEntity({
  name: 'InstanceModule',
  tableName: 'instance_modules',
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    instance: () => p.manyToOne(Instance),
    module: () => p.manyToOne(ErpModule),
    state: p.enum(INSTANCE_MODULE_STATES).default('queued'),
    /** The ERP's message when the install failed (a missing dependency, …). */
    error: p.string().length(1000).nullable(),
    installedAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  uniques: [{ name: 'instance_modules_instance_module_unique', properties: ['instance', 'module'] }]
})

export class InstanceModule extends InstanceModuleSchema.class {}
InstanceModuleSchema.setClass(InstanceModule)
