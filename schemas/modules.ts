import { Type } from 'typebox'
import { BigInt53, Int4, ref, Success } from './common.ts'

export const ModulesQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 60, description: 'Only this category (exact match, case-insensitive), e.g. `Finance`' })),
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive text searched in name, technical name and description; surrounding spaces are ignored' })),
  include: Type.Optional(Type.Literal('company', { description: '`company`: also the caller\'s company\'s modules synced from its addon sources (with `addon_source_id`). Needs a bearer token; without it the catalog is public.' }))
})

export const ErpModuleItem = Type.Object({
  id: Int4(),
  name: Type.String({ description: 'Display name, e.g. "Inventory"' }),
  technical_name: Type.String({ description: 'Stable identifier, e.g. "stock"' }),
  description: Type.String(),
  category: Type.String({ description: 'e.g. "Sales", "Finance", "Inventory & MRP"; "Custom addons" for a synced addon source\'s modules' }),
  addon_source_id: Type.Union([BigInt53({ minimum: 1 }), Type.Null()], { description: 'The company\'s addon source that provides the module (see /api/addon-sources); null for the shared catalog' }),
  edition: Type.Union([Type.Literal('community'), Type.Literal('enterprise'), Type.Null()], {
    description: 'The ERP edition whose images include the app: `community` (every image) or `enterprise` (only images with the Enterprise addons; ' +
      'where instances run the Community edition, installing it answers 409 MODULE_EDITION_UNAVAILABLE). Null for a company\'s synced module, which its addon source provides.'
  })
}, { $id: 'Module', description: 'An installable ERP app' })

export const ModulesResponse = Success({
  modules: Type.Array(ref(ErpModuleItem), { description: 'Ordered by category, then the catalog order inside it, then name' })
}, { $id: 'ModulesResponse' })
