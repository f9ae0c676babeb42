import type { Readable } from 'node:stream'
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { ArchiveReadError } from '../../../provisioning/backup-runner.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { STEADY_STATES } from '../instances/instance-states.ts'
import { InstanceBusy, InstanceDeleted, InstanceNotFound } from '../instances/instances.errors.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { ACTIVE_BACKUP_STATES, Backup, type BackupKind } from './backup.entity.ts'
import { backupsNotReady, type BackupRunners } from './backup-runners.ts'
import { inStore, type BackupStore } from './backup-store.ts'
import { toBackupView, type BackupView } from './backup.view.ts'
import { BackupArchiveUnreadable, BackupDownloadsBusy, BackupInCluster, BackupInProgress, BackupNotCompleted, BackupNotFound, BackupReaderUnavailable } from './backups.errors.ts'
import type { ByteRange } from './backup-download.ts'
import { BACKUP_QUEUE, type BackupJobData } from './backup.queue.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import type { Actor } from '../../../lib/actor.ts'

export interface BackupsServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  runners: BackupRunners
  store: BackupStore
}

/** Backups of a tenant's instances: records, the jobs that make them, their archives. */
export function createBackupsService (deps: BackupsServiceDeps) {
  const { jobs, activity, runners, store } = deps

  async function instanceOf (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, id)
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  async function backupOf (em: EntityManager, instanceId: number, backupId: number, lock = false): Promise<Backup> {
    const backup = await em.findOne(Backup, { id: backupId, instance: instanceId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {})
    if (backup === null) throw BackupNotFound()
    return backup
  }

  /** Records a backup in `queued` and sends its job, inside the caller's transaction (the caller wakes the queue after the commit). */
  async function queueIn (tx: EntityManager, actor: Actor, instance: Instance, kind: BackupKind): Promise<Backup> {
    const created = tx.create(Backup, {
      tenant: tx.getReference(Tenant, actor.tenantId),
      instance: tx.getReference(Instance, instance.id),
      state: 'queued',
      kind,
      erpVersion: instance.erpVersion
    })
    await tx.flush()
    activity.record(tx, actor, {
      type: 'backup.requested',
      title: `Backup of ${instance.name} requested`,
      targetType: 'backup',
      targetId: String(created.id),
      instanceId: instance.id
    })
    await tx.flush()
    const data: BackupJobData = { backupId: created.id, tenantId: actor.tenantId, action: 'backup' }
    await jobs.send(tx, BACKUP_QUEUE, data)
    return created
  }

  return {
    backupOf,
    queueIn,

    /** Records a backup in `queued` and queues its job; 409 while one is under way, 503 when it could only fail. */
    async create ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, kind: BackupKind = 'manual'): Promise<BackupView> {
      const instance = await instanceOf(em, instanceId)
      if (instance.state === 'deleted' || instance.state === 'deleting') throw InstanceDeleted('The instance was deleted')
      if (!STEADY_STATES.includes(instance.state)) throw InstanceBusy(`The instance is ${instance.state}: back it up when that finishes`, { state: instance.state })
      await runners.ready(instance)
      let backup: Backup
      try {
        backup = await em.transactional(async (tx) => queueIn(tx, actor, instance, kind))
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw BackupInProgress('A backup of this instance is already queued or running', { instance_id: instance.id })
        throw error
      }
      jobs.wake(BACKUP_QUEUE)
      return toBackupView(backup)
    },

    /** Newest first. */
    async list ({ em }: Pick<CallScope, 'em'>, instanceId: number, page: { page: number, per_page: number }): Promise<{ backups: BackupView[], total: number }> {
      await instanceOf(em, instanceId)
      const [rows, total] = await em.findAndCount(Backup, { instance: instanceId }, {
        orderBy: { createdAt: 'desc', id: 'desc' },
        limit: page.per_page,
        offset: (page.page - 1) * page.per_page
      })
      return { backups: rows.map(toBackupView), total }
    },

    async get ({ em }: Pick<CallScope, 'em'>, instanceId: number, backupId: number): Promise<BackupView> {
      return toBackupView(await backupOf(em, instanceId, backupId))
    },

    /**
     * The completed archive: its key, size, a file name for Content-Disposition, and how to open its
     * bytes (all, or a range) from the backup store or, for an archive kept in a Kubernetes cluster,
     * through the cluster runner; 409 BACKUP_IN_CLUSTER only where no cluster runner is configured.
     */
    async archive ({ em }: Pick<CallScope, 'em'>, instanceId: number, backupId: number): Promise<Archive> {
      const backup = await backupOf(em, instanceId, backupId)
      if (backup.state !== 'completed' || backup.archiveKey == null) throw BackupNotCompleted(`The backup is ${backup.state}: only a completed backup can be downloaded`, { state: backup.state })
      const key = backup.archiveKey
      const instance = await instanceOf(em, instanceId)
      const stamp = (backup.completedAt ?? backup.createdAt).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-')
      const fileName = `${instance.subdomain}-backup-${backup.id}-${stamp}.tar`
      if (inStore(key)) {
        const size = await store.size(key)
        if (size === undefined) throw BackupNotFound('The backup\'s archive is missing from the backup store')
        return { key, size, fileName, open: async (range) => store.read(key, range) }
      }
      const runner = runners.clusterRunnerHere(instance)
      if (runner === undefined || backup.sizeBytes == null) throw archiveInCluster(key)
      const size = backup.sizeBytes
      const spec = { instanceUid: instance.uid, tenantSubdomain: (await em.populate(instance, ['tenant'])).tenant.subdomain, subdomain: instance.subdomain }
      return { key, size, fileName, open: (range) => openInCluster(() => runner.openArchive(spec, key, { size, backupId, ...(range === undefined ? {} : { range }) })) }
    },

    /** Removes the record and its archive (admin); a backup under way cannot be removed. */
    async remove ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, backupId: number): Promise<void> {
      requireAdmin(actor, 'delete backups')
      const instance = await instanceOf(em, instanceId)
      let removedMajor: number | null | undefined
      const key = await em.transactional(async (tx) => {
        const backup = await backupOf(tx, instanceId, backupId, true)
        if (ACTIVE_BACKUP_STATES.includes(backup.state)) throw BackupInProgress('The backup is still under way: delete it once it has finished')
        activity.record(tx, actor, {
          type: 'backup.deleted',
          title: `Backup #${backup.id} of ${instance.name} deleted`,
          targetType: 'backup',
          targetId: String(backup.id),
          instanceId: instance.id
        })
        removedMajor = backup.pgMajor
        tx.remove(backup)
        await tx.flush()
        return backup.archiveKey ?? store.keyFor(actor.tenantId, instance.id, backup.id)
      })
      // After the commit: a crash in between leaves a file without a record, never a record without its file.
      if (inStore(key)) await store.remove(key)
      else await runners.clusterRunnerOf(instance)?.removeArchive({ instanceUid: instance.uid, tenantSubdomain: (await em.populate(instance, ['tenant'])).tenant.subdomain, subdomain: instance.subdomain }, removedMajor ?? await runners.serverMajor(), key)
    }
  }
}

export interface Archive {
  key: string
  size: number
  fileName: string
  /** The bytes, once they are known to come (errors before any byte is sent are the API's errors). */
  open: (range?: ByteRange) => Promise<Readable>
}

/** A cluster read's failures as the API's errors: 404, 429, 503, 502. */
async function openInCluster (open: () => Promise<Readable>): Promise<Readable> {
  try {
    return await open()
  } catch (error) {
    if (error instanceof BackendUnavailableError) throw backupsNotReady(error.backend, error.message, error.hint)
    if (!(error instanceof ArchiveReadError)) throw BackupArchiveUnreadable(`Reading the archive in the cluster failed: ${(error as Error).message}`)
    switch (error.reason) {
      case 'missing': throw BackupNotFound(error.message)
      case 'busy': throw BackupDownloadsBusy(error.message)
      case 'not-ready': throw BackupReaderUnavailable(error.message)
      case 'unreadable': throw BackupArchiveUnreadable(error.message)
    }
  }
}

/**
 * 409: the archive lives on the tenant's backup volume in a cluster whose backend is not configured
 * here: the control plane mounts no tenant volume, so only that backend (its Jobs, its reader pods) can use it.
 */
export function archiveInCluster (key: string, asked: 'download' | 'restore' = 'download'): Error {
  const why = asked === 'download' ? 'it is read there, and the backend that reads it is not configured here' : 'it is restored by a Job there, and the backend that runs it is not configured here'
  return BackupInCluster(`The archive is kept in the cluster, on the tenant's backup volume, which the portal does not mount: ${why}`, { location: key })
}

export type BackupsService = ReturnType<typeof createBackupsService>
