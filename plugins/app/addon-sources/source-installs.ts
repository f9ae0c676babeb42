/**
 * A source's modules on the company's instances. Deleting a source whose module is installed (or
 * queued or being installed) on an instance would leave that instance running code nobody can
 * update or see in the catalog: the delete is refused, naming the instances and the modules, and
 * changes nothing. What is left of the source's modules on instances (failed or
 * uninstalled installs, instances since deleted) goes with the source's catalog entries; a module
 * being uninstalled, or whose uninstall failed, is still on the instance.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { AddonSource } from './addon-source.entity.ts'
import { AddonSourceInUse } from './addon-sources.errors.ts'

/**
 * Installs that keep the module on the instance: being installed, installed, being uninstalled,
 * and an uninstall that failed (`failed` with `installed_at` still set: the module stays installed).
 */
const HOLDING_STATES = ['queued', 'installing', 'installed', 'uninstalling']

interface HoldingRow { instance_id: number, instance_name: string, technical_name: string }

export interface InstanceUsingSource {
  id: number
  name: string
  /** Technical names of the source's modules installed there. */
  modules: string[]
}

async function holdingRows (em: EntityManager, tenantId: string, source: Pick<AddonSource, 'id'>): Promise<HoldingRow[]> {
  return await em.execute<HoldingRow[]>(
    `SELECT i.id::float8 AS instance_id, i.name AS instance_name, m.technical_name
       FROM instance_modules im
       JOIN erp_modules m ON m.id = im.module_id
       JOIN instances i ON i.id = im.instance_id
      WHERE m.addon_source_id = ? AND m.tenant_id = ? AND im.tenant_id = ?
        AND (im.state IN (${HOLDING_STATES.map(() => '?').join(', ')}) OR (im.state = 'failed' AND im.installed_at IS NOT NULL)) AND i.state <> 'deleted'
      ORDER BY i.id, m.technical_name`,
    [source.id, tenantId, tenantId, ...HOLDING_STATES])
}

/** This source's modules installed on instances, each with the instances' names (`Sales, Books`): a sync must keep them. */
export async function installedModules (em: EntityManager, tenantId: string, source: Pick<AddonSource, 'id'>): Promise<Record<string, string>> {
  const where = new Map<string, string[]>()
  for (const row of await holdingRows(em, tenantId, source)) where.set(row.technical_name, [...where.get(row.technical_name) ?? [], row.instance_name])
  return Object.fromEntries([...where].map(([module, names]) => [module, names.join(', ')]))
}

/**
 * Before a sync drops catalog entries of this source (modules the new commit no longer has, none of
 * them installed anywhere: the sync checked), the install rows that still name them go: failed or
 * uninstalled installs, instances since deleted.
 */
export async function forgetInstallsOfDropped (tx: EntityManager, tenantId: string, sourceId: number, kept: string[]): Promise<void> {
  await tx.execute(`DELETE FROM instance_modules WHERE tenant_id = ? AND module_id IN (
      SELECT id FROM erp_modules WHERE addon_source_id = ? AND tenant_id = ? AND technical_name NOT IN (SELECT jsonb_array_elements_text(?::jsonb)))`,
  [tenantId, sourceId, tenantId, JSON.stringify(kept)])
}

export async function refuseWhileInstalled (tx: EntityManager, tenantId: string, source: AddonSource): Promise<void> {
  const rows = await holdingRows(tx, tenantId, source)
  if (rows.length > 0) {
    const instances = new Map<number, InstanceUsingSource>()
    for (const row of rows) {
      const id = row.instance_id
      const entry = instances.get(id) ?? { id, name: row.instance_name, modules: [] }
      entry.modules.push(row.technical_name)
      instances.set(id, entry)
    }
    const list = [...instances.values()]
    const names = list.map((instance) => `${instance.name} (${instance.modules.join(', ')})`).join('; ')
    throw AddonSourceInUse(`The addon source ${source.name} cannot be deleted while its modules are installed on ${list.length === 1 ? 'an instance' : `${list.length} instances`}: ${names}. ` +
      'Those instances run its code; the source is what keeps that code.', { instances: list })
  }
  // The rest (failed or uninstalled installs, deleted instances) names catalog entries that go with the source.
  await tx.execute('DELETE FROM instance_modules WHERE tenant_id = ? AND module_id IN (SELECT id FROM erp_modules WHERE addon_source_id = ? AND tenant_id = ?)',
    [tenantId, source.id, tenantId])
}
