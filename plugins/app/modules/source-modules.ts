import type { EntityManager } from '@mikro-orm/postgresql'

export interface SourceModule {
  technicalName: string
  name: string
  description: string
  /** The ERP series it is written for; null: any. */
  erpSeries: string | null
}

export const ADDON_CATEGORY = 'Custom addons'

/**
 * Makes the tenant's catalog rows of one addon source exactly `modules`:
 * upserted by (tenant, technical name), the source's rows no longer found
 * removed. Run inside the sync's transaction.
 */
export async function replaceSourceModules (tx: EntityManager, tenantId: string, sourceId: number, modules: SourceModule[]): Promise<void> {
  await tx.execute('DELETE FROM erp_modules WHERE tenant_id = ? AND addon_source_id = ? AND technical_name NOT IN (SELECT jsonb_array_elements_text(?::jsonb))',
    [tenantId, sourceId, JSON.stringify(modules.map((m) => m.technicalName))])
  for (const [index, m] of modules.entries()) {
    await tx.execute(`
      INSERT INTO erp_modules (technical_name, name, description, category, sequence, tenant_id, addon_source_id, erp_series)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (tenant_id, technical_name) WHERE tenant_id IS NOT NULL DO UPDATE
        SET name = excluded.name, description = excluded.description, addon_source_id = excluded.addon_source_id,
          sequence = excluded.sequence, erp_series = excluded.erp_series`,
    [m.technicalName, m.name.slice(0, 120), m.description, ADDON_CATEGORY, (index + 1) * 10, tenantId, sourceId, m.erpSeries])
  }
}
