/**
 * Uninstalls an assigned module through the instance's ERP (module-uninstall.ts). The row is
 * `uninstalling` from the request on, through retries, until `uninstalled` or `failed` (with the
 * ERP's message, or the installed modules that still depend on it). Real Odoo's uninstall takes
 * every installed module that depends on the module along: the job asks the ERP for them again
 * (they may have been installed since the request) and refuses rather than remove more than asked.
 * Idempotent: a module the ERP no longer has installed is recorded `uninstalled`, one already
 * being removed is waited for.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import type { ErpAccess } from './erp-access.ts'
import type { ErpModuleJobData } from './erp-module.queue.ts'
import { InstanceModule } from './instance-module.entity.ts'
import type { InstallBounds } from './module-install.ts'
import { uninstallModule } from './module-uninstall.ts'
import { requiredByError } from './module-uninstall-request.ts'

export function createErpModuleUninstallJob (deps: { em: EntityManager, access: ErpAccess, activity: ActivityService, bounds: InstallBounds, log: FastifyBaseLogger }) {
  const { access, activity, log } = deps

  return async function run (job: JobWithMetadata<ErpModuleJobData>): Promise<void> {
    const { tenantId, instanceModuleId } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'erp-module-uninstall' }
    const em = scopedEntityManager(deps.em, tenantId)
    const row = await em.findOne(InstanceModule, instanceModuleId, { populate: ['module', 'instance'] })
    if (row === null || row.state !== 'uninstalling') return
    const instance = await em.findOne(Instance, row.instance.id, { populate: ['tenant'] })
    if (instance === null || instance.state === 'deleted' || instance.state === 'deleting') return
    const name = row.module.technicalName
    const finish = async (state: 'uninstalled' | 'failed', error: string | null): Promise<void> => {
      await em.transactional(async (tx) => {
        const changed = await tx.nativeUpdate(InstanceModule, { id: row.id, state: 'uninstalling' },
          state === 'uninstalled' ? { state, error: null, installedAt: null } : { state, error })
        if (changed === 0) return
        activity.record(tx, actor, {
          type: state === 'uninstalled' ? 'instance_module.uninstalled' : 'instance_module.uninstall_failed',
          title: state === 'uninstalled' ? `${row.module.name} uninstalled from ${instance.name}` : `${row.module.name} could not be uninstalled from ${instance.name}: ${error ?? ''}`,
          targetType: 'instance',
          targetId: String(instance.id),
          instanceId: instance.id
        })
      })
    }
    // The time of this attempt: the reconciler reads a recent `uninstalling` as our own reload (install-in-progress.ts).
    await em.nativeUpdate(InstanceModule, { id: row.id }, { updatedAt: new Date() })
    try {
      await access.withErp(em, instance, async (erp) => {
        const [found] = await erp.listModules([name])
        if (found === undefined) return
        if (found.state === 'installed' || found.state === 'to upgrade') {
          const dependents = await erp.moduleDependents(found.id)
          if (dependents.length > 0) throw requiredByError(name, dependents.map((m) => m.name))
        }
        await uninstallModule(erp, found, deps.bounds)
      })
      await finish('uninstalled', null)
    } catch (error) {
      const code = (error as { code?: string }).code
      const last = job.retryCount >= job.retryLimit
      if (code === 'ERP_ERROR' || code === 'MODULE_REQUIRED_BY' || last) {
        await finish('failed', (error as Error).message.slice(0, 1000))
        return
      }
      log.warn({ err: error, instanceModuleId, attempt: job.retryCount + 1 }, 'Uninstalling the module failed; retrying')
      throw error
    }
  }
}
