/**
 * The request to uninstall an assigned module (DELETE …/modules/:module_id, MCP uninstall_module):
 * admin only; refused, changing nothing, for a module that is not installed, one the ERP cannot
 * uninstall, and one that installed modules depend on (real Odoo would uninstall those too, with
 * their data). The ERP is asked at once when it answers, and the job asks it again. Accepted: the
 * row goes `uninstalling` and one job is queued; asking again meanwhile queues nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { defineError } from '../../../lib/errors.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { ErpModule } from '../modules/erp-module.entity.ts'
import type { ErpAccess } from './erp-access.ts'
import { ModuleNotFound } from './erp.errors.ts'
import { ERP_MODULE_UNINSTALL_QUEUE } from './erp-module.queue.ts'
import { InstanceModule } from './instance-module.entity.ts'
import { requestModuleJob } from './module-job-request.ts'
import { NOT_INSTALLED } from './module-uninstall.ts'
import type { InstanceModuleView } from './erp-modules.service.ts'

export const ModuleNotInstalled = defineError('MODULE_NOT_INSTALLED', 'The module is not installed on the instance', 409)
export const ModuleRequiredBy = defineError('MODULE_REQUIRED_BY', 'Installed modules depend on the module: uninstall them first', 409)
export const ModuleNotUninstallable = defineError('MODULE_NOT_UNINSTALLABLE', 'The ERP cannot run without the module', 409)

/** Odoo's server-wide modules (odoo.conf `server_wide_modules`, `base,web` by default): its button_uninstall refuses them. */
export const SERVER_WIDE_MODULES: ReadonlySet<string> = new Set(['base', 'web'])

/** `dependents`: technical names, in any order (answered sorted). */
export function requiredByError (name: string, dependents: string[]): Error {
  const names = [...new Set(dependents)].sort()
  return ModuleRequiredBy(`${name} cannot be uninstalled while installed modules depend on it: ${names.join(', ')}. ` +
    'The ERP would uninstall them too, with their data: uninstall them first.', { field: 'module_id', required_by: names })
}

/** Assignments that may hold an installed module: `failed` may be a failed uninstall (still installed). */
const MAY_BE_INSTALLED = ['installed', 'failed'] as const

export function createModuleUninstall (deps: {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  access: ErpAccess
  view: (row: InstanceModule) => InstanceModuleView
}) {
  const { access } = deps

  /**
   * Asks the ERP (when it answers) whether the module is installed and what depends on it;
   * refuses accordingly. An instance that is not running: ERP_UNAVAILABLE. An ERP that runs but
   * does not answer (a registry reload): undecided, the job decides.
   */
  async function checkInErp (em: EntityManager, instance: Instance, row: InstanceModule): Promise<void> {
    const name = row.module.technicalName
    let state: string | undefined
    try {
      await access.withErp(em, instance, async (erp) => {
        const [found] = await erp.listModules([name])
        state = found?.state
        if (found === undefined || NOT_INSTALLED.has(found.state)) return
        const dependents = await erp.moduleDependents(found.id)
        if (dependents.length > 0) throw requiredByError(name, dependents.map((m) => m.name))
      })
    } catch (error) {
      if (instance.state === 'running' && (error as { code?: string }).code === 'ERP_UNAVAILABLE') return
      throw error
    }
    // A failed install left nothing to uninstall; a failed uninstall left the module installed.
    if (row.state === 'failed' && (state === undefined || NOT_INSTALLED.has(state))) {
      throw ModuleNotInstalled(`${name} is not installed on ${instance.name}: its install failed`, { field: 'module_id', state: row.state })
    }
  }

  /**
   * `queued: false`: an uninstall already asked and not finished, answered as it stands.
   * `checkOnly`: every refusal, nothing changed or queued (an MCP tool asks before it asks the person).
   */
  return async function uninstall ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, moduleId: number, options: { checkOnly?: boolean } = {}): Promise<{ module: InstanceModuleView, queued: boolean }> {
    requireAdmin(actor, 'uninstall modules')
    const instance = await em.findOne(Instance, { id: instanceId, state: { $nin: ['deleted', 'deleting'] } }, { populate: ['tenant'] })
    if (instance === null) throw InstanceNotFound()
    const module = await em.findOne(ErpModule, { id: moduleId, $or: [{ tenant: null }, { tenant: actor.tenantId }] })
    if (module === null) throw ModuleNotFound(undefined, { field: 'module_id' })
    const row = await em.findOne(InstanceModule, { instance: instance.id, module: module.id }, { populate: ['module'] })
    if (row?.state === 'uninstalling') return { module: deps.view(row), queued: false }
    if (SERVER_WIDE_MODULES.has(module.technicalName)) {
      throw ModuleNotUninstallable(`${module.technicalName} cannot be uninstalled: the ERP does not run without it`, { field: 'module_id' })
    }
    if (row === null || !(MAY_BE_INSTALLED as readonly string[]).includes(row.state)) {
      const why = row === null ? 'it was never installed here' : row.state === 'uninstalled' ? 'it was uninstalled' : `its install is ${row.state}; uninstall it once it is installed`
      throw ModuleNotInstalled(`${module.technicalName} is not installed on ${instance.name}: ${why}`, { field: 'module_id', state: row?.state ?? null })
    }
    await checkInErp(em, instance, row)
    if (options.checkOnly === true) return { module: deps.view(row), queued: false }
    const queued = await requestModuleJob(em, deps, actor, {
      queue: ERP_MODULE_UNINSTALL_QUEUE,
      instance,
      activity: { type: 'instance_module.uninstall_requested', title: `Uninstall of ${module.name} (${module.technicalName}) from ${instance.name} requested` },
      change: async (tx) => {
        // Two requests at once: the first moves the row, the second finds it moved and queues nothing.
        const changed = await tx.nativeUpdate(InstanceModule, { id: row.id, state: { $in: [...MAY_BE_INSTALLED] } }, { state: 'uninstalling', error: null, updatedAt: new Date() })
        return changed === 0 ? undefined : row
      }
    }) !== undefined
    const now = await em.findOneOrFail(InstanceModule, row.id, { populate: ['module'], refresh: true })
    if (!queued && now.state !== 'uninstalling') {
      throw ModuleNotInstalled(`${module.technicalName} is not installed on ${instance.name}: it is ${now.state}`, { field: 'module_id', state: now.state })
    }
    return { module: deps.view(now), queued }
  }
}
