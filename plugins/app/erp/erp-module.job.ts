/**
 * Installs an assigned module through the instance's ERP: `update_list` when the ERP does not
 * know the module yet (addons added since), then the install, decided by the module's state read
 * back from the ERP (module-install.ts, bounded by ERP_INSTALL_TIMEOUT_SECONDS). While the ERP
 * cannot be reached the job retries; a fault of the ERP (a missing dependency, an unknown module)
 * fails the assignment at once with the ERP's message. Idempotent: an installed module is left
 * alone, one still being installed is waited for. The row is `installing` meanwhile, which tells
 * the reconciler that the ERP's failing health check is ours (install-in-progress.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import type { ErpAccess } from './erp-access.ts'
import { ErpError } from './erp.errors.ts'
import type { ErpModuleJobData } from './erp-module.queue.ts'
import { InstanceModule } from './instance-module.entity.ts'
import { installModule, type InstallBounds } from './module-install.ts'

export function createErpModuleJob (deps: { em: EntityManager, access: ErpAccess, activity: ActivityService, install: InstallBounds, log: FastifyBaseLogger }) {
  const { access, activity, log } = deps

  return async function run (job: JobWithMetadata<ErpModuleJobData>): Promise<void> {
    const { tenantId, instanceModuleId } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'erp-module-install' }
    const em = scopedEntityManager(deps.em, tenantId)
    const row = await em.findOne(InstanceModule, instanceModuleId, { populate: ['module', 'instance'] })
    if (row === null || row.state === 'installed' || row.state === 'failed') return
    const instance = await em.findOne(Instance, row.instance.id, { populate: ['tenant'] })
    if (instance === null || instance.state === 'deleted' || instance.state === 'deleting') return
    const name = row.module.technicalName
    const finish = async (state: 'installed' | 'failed', error: string | null): Promise<void> => {
      await em.transactional(async (tx) => {
        await tx.nativeUpdate(InstanceModule, { id: row.id }, { state, error, installedAt: state === 'installed' ? new Date() : null })
        activity.record(tx, actor, {
          type: state === 'installed' ? 'instance_module.installed' : 'instance_module.failed',
          title: state === 'installed' ? `${row.module.name} installed on ${instance.name}` : `${row.module.name} could not be installed on ${instance.name}: ${error ?? ''}`,
          targetType: 'instance',
          targetId: String(instance.id),
          instanceId: instance.id
        })
      })
    }
    await em.nativeUpdate(InstanceModule, { id: row.id }, { state: 'installing', updatedAt: new Date() })
    try {
      await access.withErp(em, instance, async (erp) => {
        let [found] = await erp.listModules([name])
        if (found === undefined) {
          await erp.updateModuleList()
          ;[found] = await erp.listModules([name])
        }
        if (found === undefined) throw ErpError(`The ERP has no module ${name} in its addons path`)
        await installModule(erp, found, deps.install)
      })
      await finish('installed', null)
    } catch (error) {
      const code = (error as { code?: string }).code
      const last = job.retryCount >= job.retryLimit
      if (code === 'ERP_ERROR' || last) {
        await finish('failed', (error as Error).message.slice(0, 1000))
        return
      }
      log.warn({ err: error, instanceModuleId, attempt: job.retryCount + 1 }, 'Installing the module failed; retrying')
      await em.nativeUpdate(InstanceModule, { id: row.id }, { state: 'queued' })
      throw error
    }
  }
}
