import { Type } from 'typebox'
import { Int4, Success } from './common.ts'

export const ModulesQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 60, description: 'Only this category (exact match, case-insensitive), e.g. `Finance`' })),
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive text searched in name, technical name and description; surrounding spaces are ignored' }))
})

export const ErpModuleItem = Type.Object({
  id: Int4(),
  name: Type.String({ description: 'Display name, e.g. "Inventory"' }),
  technical_name: Type.String({ description: 'Stable identifier, e.g. "stock"' }),
  description: Type.String(),
  category: Type.String({ description: 'e.g. "Sales", "Finance", "Inventory & MRP"' })
}, { description: 'An installable ERP app' })

export const ModulesResponse = Success({
  modules: Type.Array(ErpModuleItem, { description: 'Ordered by category, then the catalog order inside it, then name' })
})
