import { UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { defineError } from '../../../lib/errors.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { ErpModule, type ModuleEdition } from '../modules/erp-module.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { InstanceModule, type InstanceModuleState } from './instance-module.entity.ts'
import { ERP_MODULE_QUEUE } from './erp-module.queue.ts'
import { requestModuleJob } from './module-job-request.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import type { ErpAccess } from './erp-access.ts'
import { createModuleUninstall } from './module-uninstall-request.ts'
import { ModuleNotFound } from './erp.errors.ts'

export { ModuleNotFound }
export const ModuleVersionMismatch = defineError('MODULE_ERP_VERSION_MISMATCH', 'The module is written for another ERP version', 409)
export const ModuleEditionUnavailable = defineError('MODULE_EDITION_UNAVAILABLE', 'The module is not in the ERP edition instances run here', 409)

export interface InstanceModuleView {
  module_id: number
  technical_name: string
  name: string
  state: InstanceModuleState
  installed_at: string | null
  error: string | null
}

/** The instance (when it is the tenant's and not deleted) with its assignments: one row with nulls when it has none, none when there is no such instance. */
const LIST_INSTANCE_MODULES: TenantStatement = {
  name: 'erp-instance-modules',
  text: `
SELECT m.id AS module_id, m.technical_name, m.name, im.state, im.installed_at, im.error
FROM instances i
LEFT JOIN instance_modules im ON im.instance_id = i.id AND im.tenant_id = $1
LEFT JOIN erp_modules m ON m.id = im.module_id
WHERE i.tenant_id = $1 AND i.id = $2::bigint AND i.state NOT IN ('deleted', 'deleting')
ORDER BY im.created_at, im.id`
}

interface InstanceModuleRow { module_id: number | null, technical_name: string, name: string, state: InstanceModuleState, installed_at: Date | null, error: string | null }

export function toInstanceModuleView (row: InstanceModule): InstanceModuleView {
  return {
    module_id: row.module.id,
    technical_name: row.module.technicalName,
    name: row.module.name,
    state: row.state,
    installed_at: row.installedAt?.toISOString() ?? null,
    error: row.error ?? null
  }
}

/** Catalog modules assigned to an instance; each assignment is installed through the ERP by a job. */
export function createErpModulesService (deps: {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  /** The edition ERP_IMAGE carries: a Community image has no Enterprise-only app to install. */
  erpEdition: ModuleEdition
  /** The instance's ERP, asked before an uninstall is queued (what depends on the module). */
  access: ErpAccess
}) {
  const { jobs, activity } = deps

  async function instanceOf (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, { id, state: { $nin: ['deleted', 'deleting'] } })
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  /** A module uninstalled earlier, asked for again: the same assignment goes back to `queued` with a new install job. */
  async function reinstall (em: EntityManager, actor: CallScope['actor'], instance: Instance, row: InstanceModule): Promise<{ module: InstanceModuleView, created: boolean }> {
    const queued = await requestModuleJob(em, deps, actor, {
      queue: ERP_MODULE_QUEUE,
      instance,
      activity: { type: 'instance_module.requested', title: `Install of ${row.module.name} (${row.module.technicalName}) on ${instance.name} requested` },
      change: async (tx) => {
        const changed = await tx.nativeUpdate(InstanceModule, { id: row.id, state: 'uninstalled' }, { state: 'queued', error: null, installedAt: null, updatedAt: new Date() })
        return changed === 0 ? undefined : row
      }
    }) !== undefined
    const now = await em.findOneOrFail(InstanceModule, row.id, { populate: ['module'], refresh: true })
    return { module: toInstanceModuleView(now), created: queued }
  }

  return {
    /**
     * Admin only. Moves an installed module to `uninstalling` and queues its uninstall through the
     * ERP (`queued: true`); refusals in module-uninstall-request.ts.
     */
    uninstall: createModuleUninstall({ jobs, activity, access: deps.access, view: toInstanceModuleView }),

    /** One statement, the caller's check included (`read`): a read path polled while installs run. */
    async list ({ read }: Pick<CallScope, 'read'>, instanceId: number): Promise<InstanceModuleView[]> {
      const { rows } = await read<InstanceModuleRow>(LIST_INSTANCE_MODULES, [instanceId])
      if (rows.length === 0) throw InstanceNotFound()
      return rows.filter((row) => row.module_id !== null).map((row) => ({
        module_id: Number(row.module_id),
        technical_name: row.technical_name,
        name: row.name,
        state: row.state,
        installed_at: row.installed_at === null ? null : new Date(row.installed_at).toISOString(),
        error: row.error
      }))
    },

    /**
     * Admin only. Records the assignment in `queued` and queues its install (`created: true`);
     * a module already assigned is left as it is (`created: false`).
     */
    async assign ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, moduleId: number): Promise<{ module: InstanceModuleView, created: boolean }> {
      requireAdmin(actor, 'install modules')
      const instance = await instanceOf(em, instanceId)
      // The shared catalog, or a module one of this company's synced addon sources provides; another
      // company's synced module is as unknown as a made-up id.
      const module = await em.findOne(ErpModule, { id: moduleId, $or: [{ tenant: null }, { tenant: actor.tenantId }] })
      if (module === null) throw ModuleNotFound(undefined, { field: 'module_id' })
      if (module.erpSeries != null && module.erpSeries !== instance.erpVersion) {
        throw ModuleVersionMismatch(`${module.technicalName} is written for ERP ${module.erpSeries}; this instance runs ${instance.erpVersion}`,
          { field: 'module_id', module_erp_version: module.erpSeries, instance_erp_version: instance.erpVersion })
      }
      if (module.edition === 'enterprise' && deps.erpEdition !== 'enterprise') {
        throw ModuleEditionUnavailable(`${module.technicalName} (${module.name}) is only in the ERP's Enterprise edition, and instances here run the Community edition`,
          { field: 'module_id', module_edition: module.edition, instance_edition: deps.erpEdition })
      }
      const existing = await em.findOne(InstanceModule, { instance: instance.id, module: module.id }, { populate: ['module'] })
      if (existing?.state === 'uninstalled') return await reinstall(em, actor, instance, existing)
      if (existing !== null) return { module: toInstanceModuleView(existing), created: false }
      try {
        const created = await requestModuleJob(em, deps, actor, {
          queue: ERP_MODULE_QUEUE,
          instance,
          activity: { type: 'instance_module.requested', title: `Install of ${module.name} (${module.technicalName}) on ${instance.name} requested` },
          change: async (tx) => {
            const row = tx.create(InstanceModule, {
              tenant: tx.getReference(Tenant, actor.tenantId),
              instance: tx.getReference(Instance, instance.id),
              module,
              state: 'queued',
              error: null,
              installedAt: null
            })
            await tx.flush()
            return row
          }
        })
        return { module: toInstanceModuleView(created), created: true }
      } catch (error) {
        // Two admins assigning the same module at once: the unique index decides, the second is a no-op.
        if (!(error instanceof UniqueConstraintViolationException)) throw error
        const row = await em.findOneOrFail(InstanceModule, { instance: instance.id, module: module.id }, { populate: ['module'], refresh: true })
        return { module: toInstanceModuleView(row), created: false }
      }
    }
  }
}

export type ErpModulesService = ReturnType<typeof createErpModulesService>
