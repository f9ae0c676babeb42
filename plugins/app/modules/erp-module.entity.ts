import { defineEntity, p } from '@mikro-orm/core'
import { AddonSource } from '../addon-sources/addon-source.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * The catalog of installable ERP apps: reference data, the same for every
 * tenant (`tenant` null), plus the modules a tenant's synced addon sources
 * provide (`tenant` and `addonSource` set; only that tenant sees them).
 */
export type ModuleEdition = 'community' | 'enterprise'

const ErpModuleSchema = defineEntity({
  name: 'ErpModule',
  tableName: 'erp_modules',
  properties: {
    id: p.integer().primary().autoincrement(),
    technicalName: p.string().length(64),
    name: p.string().length(120),
    description: p.text(),
    category: p.string().length(60).index(),
    sequence: p.integer().default(100),
    tenant: () => p.manyToOne(Tenant).nullable().deleteRule('cascade').index(),
    addonSource: () => p.manyToOne(AddonSource).nullable().deleteRule('cascade').index(),
    /** The ERP series a synced module's manifest names (`17.0`); null: any (the shared catalog, unversioned addons). */
    erpSeries: p.string().length(16).nullable(),
    /**
     * The shared catalog's apps: `community` when every ERP image has it, `enterprise` when only
     * images with the Enterprise addons do. Null for a company's synced module: its source provides it.
     */
    edition: p.string().length(16).nullable().$type<ModuleEdition>()
  },
  uniques: [
    { name: 'erp_modules_technical_name_unique', properties: ['technicalName'], where: { tenant: null } },
    { name: 'erp_modules_tenant_technical_name_unique', properties: ['tenant', 'technicalName'], where: { tenant: { $ne: null } } }
  ]
})

export class ErpModule extends ErpModuleSchema.class {}
ErpModuleSchema.setClass(ErpModule)
