import { defineEntity, p } from '@mikro-orm/core'

/** The catalog of installable ERP apps: reference data, the same for every tenant. */
const ErpModuleSchema = defineEntity({
  name: 'ErpModule',
  tableName: 'erp_modules',
  properties: {
    id: p.integer().primary().autoincrement(),
    technicalName: p.string().length(64).unique(),
    name: p.string().length(120),
    description: p.text(),
    category: p.string().length(60).index(),
    sequence: p.integer().default(100)
  }
})

export class ErpModule extends ErpModuleSchema.class {}
ErpModuleSchema.setClass(ErpModule)
