import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import { ErpModule, type ModuleEdition } from './erp-module.entity.ts'

export interface ModuleView {
  id: number
  name: string
  technical_name: string
  description: string
  category: string
  /** The tenant's addon source that provides it; null for the shared catalog. */
  addon_source_id: number | null
  /** The ERP edition whose images include it (shared catalog); null for a synced module. */
  edition: ModuleEdition | null
}

export interface ModuleFilters {
  /** Exact category, compared without case. */
  category?: string
  /** Searched without case in name, technical name and description. */
  q?: string
}

/** Makes `%`, `_` and `\` match themselves in a LIKE pattern. */
export function escapeLike (text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`)
}

export function toModuleView (row: ErpModule): ModuleView {
  return {
    id: row.id, name: row.name, technical_name: row.technicalName, description: row.description, category: row.category,
    addon_source_id: row.addonSource?.id ?? null, edition: row.edition ?? null
  }
}

export function createModulesService () {
  return {
    /**
     * The catalog, ordered by category, then sequence, then name. Blank filters are ignored.
     * With a tenant: the shared catalog plus that tenant's synced addon modules.
     */
    async list (em: EntityManager, filters: ModuleFilters = {}, tenantId?: string): Promise<ModuleView[]> {
      const where: FilterQuery<ErpModule>[] = [tenantId === undefined ? { tenant: null } : { $or: [{ tenant: null }, { tenant: tenantId }] }]
      const category = filters.category?.trim() ?? ''
      if (category !== '') where.push({ category: { $ilike: escapeLike(category) } })
      const q = filters.q?.trim() ?? ''
      if (q !== '') {
        const pattern = `%${escapeLike(q)}%`
        where.push({ $or: [{ name: { $ilike: pattern } }, { technicalName: { $ilike: pattern } }, { description: { $ilike: pattern } }] })
      }
      // The tenant condition is explicit above; the filter would only join the referenced tenant and source rows.
      const rows = await em.find(ErpModule, { $and: where }, {
        ...ACROSS_TENANTS,
        orderBy: [{ category: 'asc' }, { sequence: 'asc' }, { name: 'asc' }, { technicalName: 'asc' }]
      })
      return rows.map(toModuleView)
    }
  }
}

export type ModulesService = ReturnType<typeof createModulesService>
