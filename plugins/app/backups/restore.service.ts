import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance, type InstanceState } from '../instances/instance.entity.ts'
import type { InstancesService } from '../instances/instances.service.ts'
import { STEADY_STATES } from '../instances/instance-states.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import { InstanceBusy, InstanceDeleted, InstanceNotFound } from '../instances/instances.errors.ts'
import { hashFile } from './backup-archive.ts'
import { ACTIVE_BACKUP_STATES, Backup } from './backup.entity.ts'
import type { BackupRunners } from './backup-runners.ts'
import type { BackupStore } from './backup-store.ts'
import { toBackupView, type BackupView } from './backup.view.ts'
import { archiveInCluster, type BackupsService } from './backups.service.ts'
import { BACKUP_QUEUE, type RestoreJobData } from './backup.queue.ts'
import { inStore } from './backup-store.ts'
import { BackupConfirmationMismatch, BackupCorrupt, BackupInProgress, BackupNotCompleted } from './backups.errors.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export type RestoreRequest =
  | { mode: 'replace', /** The instance's subdomain, typed again. */ confirm: string }
  | { mode: 'new', name: string, subdomain: string }

export interface RestoreServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  transitions: InstanceTransitions
  runners: BackupRunners
  store: BackupStore
  backups: Pick<BackupsService, 'backupOf'>
  instances: Pick<InstancesService, 'createFor'>
}

export type RestoreOutcome = { backup: BackupView, instance_id: number, instance_state: InstanceState }

/**
 * Restores (admin), in place or as a new instance: every check that can refuse is made before
 * anything changes (confirmation, states, plan slots, backup image, the archive's SHA-256),
 * then the instance moves to (or is created in) `restoring` and the restore job takes over.
 */
export function createRestoreService (deps: RestoreServiceDeps) {
  const { jobs, activity, transitions, runners, store } = deps

  /** A completed backup whose archive is in the store, or in the cluster of a backend that restores there. */
  function restorable (backup: Backup, instance: Instance): string {
    if (backup.state !== 'completed' || backup.archiveKey == null) throw BackupNotCompleted(`The backup is ${backup.state}: only a completed backup can be restored`, { state: backup.state })
    if (!inStore(backup.archiveKey) && runners.clusterRunnerHere(instance) === undefined) throw archiveInCluster(backup.archiveKey, 'restore')
    return backup.archiveKey
  }

  /**
   * The archive has its recorded size and SHA-256 (422 BACKUP_CORRUPT otherwise). An archive in
   * the cluster is checked there, by the restore Job, before it changes anything.
   */
  async function verified (backup: Backup, instance: Instance): Promise<void> {
    const key = restorable(backup, instance)
    if (!inStore(key)) return
    const found = await hashFile(store.localPath(key)).catch(() => undefined)
    if (found === undefined || found.sha256 !== backup.archiveSha256 || found.bytes !== backup.sizeBytes) {
      throw BackupCorrupt(found === undefined
        ? 'The backup\'s archive is missing from the backup store'
        : `The archive does not match its recorded SHA-256 (${found.sha256}, expected ${backup.archiveSha256}): nothing was changed`)
    }
  }

  /** A new instance (a plan slot, 409/403 like create) made from the backup by the restore job. */
  async function restoreAsNew (em: EntityManager, actor: Actor, source: Instance, backup: Backup, request: { name: string, subdomain: string }): Promise<RestoreOutcome> {
    restorable(backup, source)
    await runners.ready(source)
    await verified(backup, source)
    const created = await deps.instances.createFor({ em, actor }, { name: request.name, subdomain: request.subdomain, erp_version: backup.erpVersion, backend: source.backend }, 'restoring', async (tx, instance) => {
      activity.record(tx, actor, { type: 'backup.restore_requested', title: `New instance ${instance.name} from backup #${backup.id} of ${source.name} requested`, targetType: 'backup', targetId: String(backup.id), instanceId: instance.id })
      await tx.flush()
      const data: RestoreJobData = { backupId: backup.id, tenantId: actor.tenantId, action: 'restore', instanceId: instance.id, targetInstanceId: instance.id }
      await jobs.send(tx, BACKUP_QUEUE, data)
    })
    jobs.wake(BACKUP_QUEUE)
    return { backup: toBackupView(backup), instance_id: created.id, instance_state: created.state }
  }

  return {
    /** A backup a staging copy is made from, checked as a restore as a new instance checks it (completed, runner ready, archive intact). */
    async checkSource (backup: Backup, source: Instance): Promise<void> {
      restorable(backup, source)
      await runners.ready(source)
      await verified(backup, source)
    },

    async restore ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, backupId: number, request: RestoreRequest): Promise<RestoreOutcome> {
      requireAdmin(actor, 'restore backups')
      const backup = await deps.backups.backupOf(em, instanceId, backupId)
      const instance = await em.findOne(Instance, instanceId)
      if (instance === null) throw InstanceNotFound()
      if (request.mode === 'new') return restoreAsNew(em, actor, instance, backup, request)
      if (instance.state === 'deleted' || instance.state === 'deleting') throw InstanceDeleted('The instance was deleted: restore its backup as a new instance instead')
      if (request.confirm !== instance.subdomain) {
        throw BackupConfirmationMismatch(`confirm must be the instance's subdomain "${instance.subdomain}": the restore replaces its database and filestore`, { field: 'confirm' })
      }
      restorable(backup, instance)
      if (!STEADY_STATES.includes(instance.state)) throw InstanceBusy(`The instance is ${instance.state}: wait until that finishes, then restore`, { state: instance.state })
      const active = await em.count(Backup, { instance: instanceId, state: { $in: [...ACTIVE_BACKUP_STATES] } })
      if (active > 0) throw BackupInProgress('A backup of this instance is under way: restore once it has finished')
      await runners.ready(instance)
      await verified(backup, instance)
      const moved = await em.transactional(async (tx) => {
        const done = await transitions.moveIf(tx, actor, instanceId, STEADY_STATES, { to: 'restoring', title: `Instance ${instance.name} is being restored from backup #${backup.id}` })
        if (done === undefined) return undefined
        activity.record(tx, actor, { type: 'backup.restore_requested', title: `Restore of ${instance.name} from backup #${backup.id} requested`, targetType: 'backup', targetId: String(backup.id), instanceId })
        await tx.flush()
        const data: RestoreJobData = { backupId: backup.id, tenantId: actor.tenantId, action: 'restore', instanceId }
        await jobs.send(tx, BACKUP_QUEUE, data)
        return done
      })
      if (moved === undefined) throw InstanceBusy('The instance started changing state meanwhile: try again when that finishes')
      jobs.wake(BACKUP_QUEUE)
      return { backup: toBackupView(backup), instance_id: instance.id, instance_state: moved.state }
    }
  }
}

export type RestoreService = ReturnType<typeof createRestoreService>
