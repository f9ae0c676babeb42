/**
 * The restore job, in place or into a new instance. The archive is unpacked and every part
 * checked against the manifest before the instance is touched; then the instance is stopped, the
 * backup loaded with pg_restore into a fresh database beside the instance's, its filestore
 * unpacked beside the live one and swapped in (the replaced files kept aside), and only then the
 * fresh database takes the old one's place: a failed load or unpack leaves the instance's data as
 * it was, a failed promotion puts the replaced files back, and tables made after the backup do not
 * survive a successful one. Then the instance is started again. Idempotent: it works only while
 * the instance is `restoring`, and each step converges when run again. The last failed attempt
 * puts the instance in `error` with the reason.
 *
 * A new instance is made (database, volume, container or Deployment, server configuration) without
 * starting its ERP: a real ERP answers its health check only once its database is initialised, and
 * its one-off initialisation must never run on a copy. The data goes in first; only then is the
 * copy recorded as initialised and started. Like the ERP's own copy, its filestore folder takes its
 * own database's name and its database gets its own uuid and secret (provisioning/copy-identity.ts).
 *
 * A staging copy (docs/staging.md) is made, or refreshed in place, from a backup of its production
 * instance that may still be under way: the job then sends itself again a little later (a live job
 * stays queued for the copy all along) and fails the copy if that backup failed. Once the data is
 * in, the ERP's neutralization runs on the copy's database before it first starts: a failure leaves
 * the copy in `error`, never started on un-neutralized data.
 *
 * An archive kept in the cluster (Kubernetes) is checked and loaded by the backend's restore Job
 * instead, into the same staged database; a second short Job settles the filestore the same way.
 * A corrupt archive is not retried: nothing was loaded, so the instance is started again on its own data.
 *
 * Making, stopping, starting and waiting are the instance lifecycle's (instances/instance-lifecycle.ts),
 * under the instance jobs' rules: a transient `error` report gets its grace, and a wait ends once the
 * instance is no longer `restoring`.
 */
import { join } from 'node:path'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { ArchiveCorruptError, type RestoreAsCopy } from '../../../provisioning/backup-runner.ts'
import { imageFor } from '../../../provisioning/image-template.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import type { InstanceLifecycle } from '../instances/instance-lifecycle.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import { PARTS, readArchive } from './backup-archive.ts'
import { ACTIVE_BACKUP_STATES, Backup } from './backup.entity.ts'
import type { BackupRunners } from './backup-runners.ts'
import type { BackupStore } from './backup-store.ts'
import { BACKUP_QUEUE, type RestoreJobData } from './backup.queue.ts'
import type { Jobs } from '../../external/jobs.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import { Instance } from '../instances/instance.entity.ts'

export interface RestoreJobDeps {
  em: EntityManager
  activity: ActivityService
  transitions: InstanceTransitions
  runners: BackupRunners
  store: BackupStore
  databases: ErpDatabasesPort
  /**
   * Makes, stops, starts and waits for the instance as the instance jobs do; a new instance gets
   * its ERP secrets, and once the restored instance runs, before it is reported so, its ERP gets
   * its generated administrator password again (the database holds the one it was backed up with).
   */
  lifecycle: InstanceLifecycle
  log: FastifyBaseLogger
  /** Sends a staging copy's restore again while the backup it waits for is under way. */
  jobs: Pick<Jobs, 'send' | 'wake'>
  /** ERP_IMAGE: the image an instance that takes its backup's ERP version records. */
  imageTemplate?: string
}

/** The state a restore holds the instance in: the waits end once it is left. */
const DURING = 'restoring'

/** How long a staging copy's restore waits before looking at its backup again. */
export const BACKUP_WAIT_SECONDS = 2

export function createRestoreJob (deps: RestoreJobDeps) {
  const { runners, store, databases, activity, transitions, lifecycle, log } = deps

  /**
   * A staging copy's backup still under way: this job is sent again to look a little later (sent
   * before this one completes, so the copy always has a live job); a failed backup fails the copy.
   */
  async function waitForBackup (data: RestoreJobData, backup: Backup, instance: Instance, actor: SystemActor): Promise<void> {
    const em = scopedEntityManager(deps.em, data.tenantId)
    if (ACTIVE_BACKUP_STATES.includes(backup.state)) {
      await em.transactional(async (tx) => { await deps.jobs.send(tx, BACKUP_QUEUE, data, { startAfter: BACKUP_WAIT_SECONDS }) })
      return
    }
    const message = `The backup #${backup.id} of ${backup.instance.name} it is made from ${backup.state}${backup.error == null ? '' : `: ${backup.error}`}`
    await em.transactional(async (tx) => {
      const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'error', message: message.slice(0, 500) })
      if (moved === undefined) return
      activity.record(tx, actor, { type: 'backup.restore_failed', title: `Staging copy ${instance.name} not made: ${message}`, targetType: 'backup', targetId: String(backup.id), instanceId: instance.id })
      await tx.flush()
    })
  }

  return async function restoreJob (job: JobWithMetadata<RestoreJobData>): Promise<void> {
    const { backupId, tenantId } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'backup-restore' }
    const em = scopedEntityManager(deps.em, tenantId)
    const backup = await em.findOne(Backup, backupId, { populate: ['instance', 'instance.tenant'] })
    const target = job.data.targetInstanceId
    const instance = target === undefined ? backup?.instance : await em.findOne(Instance, target, { populate: ['tenant'] }) ?? undefined
    if (backup == null || instance === undefined || instance.state !== 'restoring') return
    if (job.data.staging !== undefined && backup.state !== 'completed') {
      await waitForBackup(job.data, backup, instance, actor)
      return
    }
    if (backup.archiveKey == null) return
    const jobLog = log.child({ ...jobLogBindings(job), instance_id: instance.id })
    /** Made by this job (a new instance, a new staging copy), not only loaded (a restore in place, a staging refresh). */
    const asNew = target !== undefined && job.data.staging !== 'refresh'
    /** The ERP's neutralization before the instance starts (a staging copy). */
    const neutralize = async (spec: InstanceSpec): Promise<void> => {
      if (job.data.staging === undefined) return
      await em.nativeUpdate(Instance, { id: instance.id }, { neutralizedAt: null })
      await lifecycle.neutralize(instance, spec)
      await em.nativeUpdate(Instance, { id: instance.id }, { neutralizedAt: new Date() })
    }
    /**
     * The data is now the backup's: an instance on another ERP version (upgraded since the backup, or a
     * staging copy whose test upgrade succeeded) takes the backup's version and its image before it
     * starts, so one version's server never runs on another version's database.
     */
    const takeBackupVersion = async (spec: InstanceSpec): Promise<void> => {
      if (spec.erpVersion === backup.erpVersion) return
      spec.erpVersion = backup.erpVersion
      await lifecycle.backendOf(instance).changeImage?.(spec)
      const image = deps.imageTemplate === undefined ? instance.image : imageFor(deps.imageTemplate, backup.erpVersion)
      await em.nativeUpdate(Instance, { id: instance.id }, { erpVersion: backup.erpVersion, image })
      Object.assign(instance, { erpVersion: backup.erpVersion, image })
    }
    /** A copy's filestore is renamed after its own database, and its database gets its own identity. */
    const copy: RestoreAsCopy | undefined = target !== undefined ? { sourceDatabase: databases.namesFor(backup.instance.uid).database } : undefined
    const record = (tx: EntityManager, type: ActivityType, title: string): void => {
      activity.record(tx, actor, { type, title, targetType: 'backup', targetId: String(backup.id), instanceId: instance.id })
    }
    /** The instance made (when new, not started) or stopped, `load` run, a copy recorded as initialised, the instance started. */
    const stoppedFor = async (spec: InstanceSpec, load: () => Promise<void>): Promise<void> =>
      lifecycle.loadStopped(em, instance, spec, { create: asNew, during: DURING, signal: job.signal }, load)
    /** The staged database takes the instance's one's place; the swapped-in files stay, or go back with the database that stays. */
    const promoteThenSettle = async (settle: (keep: 'restored' | 'replaced') => Promise<void>): Promise<void> => {
      try {
        await databases.promote(instance.uid)
      } catch (error) {
        // Should putting them back fail too, the next attempt's restore puts them back first.
        await settle('replaced').catch((settleError: unknown) => jobLog.warn({ err: settleError }, 'The replaced filestore could not be put back'))
        throw error
      }
      await settle('restored')
    }
    try {
      const pgMajor = await runners.serverMajor()
      const cluster = runners.clusterRunnerOf(instance)
      const key = backup.archiveKey
      if (cluster !== undefined) {
        // The archive is on a volume only the cluster mounts: a Job there checks and loads it.
        const spec = await lifecycle.specOf(em, instance, copy !== undefined ? 'copy' : 'data')
        await stoppedFor(spec, async () => {
          const staged = await databases.stage(instance.uid)
          await cluster.restore(spec, pgMajor, { backupId: backup.id, key, sha256: backup.archiveSha256 ?? '', database: staged.name, ...(copy === undefined ? {} : { copy }) })
          await promoteThenSettle((keep) => cluster.settleFilestore(spec, pgMajor, keep))
          await takeBackupVersion(spec)
          await neutralize(spec)
        })
      } else {
        const runner = runners.runnerOf(instance)
        const scratch = await store.scratch(`restore-${backup.id}`)
        try {
          await readArchive(store.localPath(key), scratch.dir)
          const spec = await lifecycle.specOf(em, instance, copy !== undefined ? 'copy' : 'data')
          await stoppedFor(spec, async () => {
            // Loaded beside the instance's database, which is only replaced once the load and the filestore's unpack have succeeded.
            const staged = await databases.stage(instance.uid)
            await runner.restoreDatabase({ ...spec, database: staged }, pgMajor, join(scratch.dir, PARTS.database), copy)
            await runner.importFilestore(spec, pgMajor, join(scratch.dir, PARTS.filestore), copy)
            await promoteThenSettle((keep) => runner.settleFilestore(spec, pgMajor, keep))
            await takeBackupVersion(spec)
            await neutralize(spec)
          })
        } finally {
          await scratch.done()
        }
      }
      await lifecycle.beforeRunning(scopedEntityManager(deps.em, tenantId), instance, { from: backup.instance })
      await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
        const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'running' })
        if (moved === undefined) return
        record(tx, 'backup.restored', asNew ? `${instance.name} made from backup #${backup.id} of ${backup.instance.name}` : `${instance.name} restored from backup #${backup.id}`)
        await tx.flush()
      })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      // A corrupt archive stays corrupt: no retry. Nothing was loaded, so the instance serves its own data again.
      const corrupt = error instanceof ArchiveCorruptError
      const last = corrupt || job.retryCount >= job.retryLimit
      jobLog.warn({ err: error, backupId, attempt: job.retryCount + 1, last }, 'Restore attempt failed')
      if (!last) throw error
      // A copy of the database that will never be promoted: not left to hold the disk until the next restore.
      await databases.discardStaged(instance.uid).catch((discardError: unknown) => jobLog.warn({ err: discardError }, 'The staged database of the failed restore could not be dropped'))
      if (corrupt && !asNew && await lifecycle.startedAgain(em, instance, { during: DURING, signal: job.signal })) {
        await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
          const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'running', message: `Restore from backup #${backup.id} refused: ${message}` })
          if (moved === undefined) return
          record(tx, 'backup.restore_failed', `Restore of ${instance.name} from backup #${backup.id} failed: ${message}`)
          await tx.flush()
        })
        return
      }
      await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
        const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'error', message: `Restore from backup #${backup.id} failed: ${message}` })
        if (moved === undefined) return
        record(tx, 'backup.restore_failed', `Restore of ${instance.name} from backup #${backup.id} failed: ${message}`)
        await tx.flush()
      })
    }
  }
}
