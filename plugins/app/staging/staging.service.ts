import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import { ACROSS_TENANTS } from '../../../database/tenancy.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { ACTIVE_BACKUP_STATES, Backup } from '../backups/backup.entity.ts'
import { BACKUP_QUEUE, type RestoreJobData } from '../backups/backup.queue.ts'
import type { BackupRunners } from '../backups/backup-runners.ts'
import type { BackupsService } from '../backups/backups.service.ts'
import type { RestoreService } from '../backups/restore.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { STEADY_STATES } from '../instances/instance-states.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import type { InstanceDetailView } from '../instances/instance.view.ts'
import type { InstancesService } from '../instances/instances.service.ts'
import { InstanceBusy, InstanceDeleted, InstanceNotFound } from '../instances/instances.errors.ts'
import { InstanceNotStaging, StagingOfStaging, StagingParentGone } from './staging.errors.ts'
import { stagingSubdomain } from './staging-subdomain.ts'

export interface StagingServiceDeps {
  jobs: Pick<Jobs, 'send' | 'wake'>
  activity: ActivityService
  transitions: InstanceTransitions
  runners: Pick<BackupRunners, 'ready'>
  backups: Pick<BackupsService, 'backupOf' | 'queueIn'>
  restores: Pick<RestoreService, 'checkSource'>
  instances: Pick<InstancesService, 'createFor' | 'get'>
  ttlDays: number
  now?: () => Date
}

export interface CreateStagingRequest {
  name?: string
  subdomain?: string
  from_backup_id?: number
}

const DAY_MS = 86_400_000
/** Default subdomains tried before the caller has to name one. */
const MAX_TRIES = 20

/**
 * Staging copies (docs/staging.md): a neutralized copy of a production instance, made from one of
 * its completed backups or from a fresh one, refreshed from a fresh one, with one ERP worker and an
 * expiry. The data work is the restore job's (backups/restore.job.ts, `staging` in its data), which
 * waits for a backup still under way and neutralizes the copy before it first starts.
 */
export function createStagingService (deps: StagingServiceDeps) {
  const { jobs, activity, transitions } = deps
  const now = deps.now ?? (() => new Date())
  const expiry = (): Date => new Date(now().getTime() + deps.ttlDays * DAY_MS)

  async function load (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, id, { populate: ['parent'] })
    if (instance === null) throw InstanceNotFound()
    return instance
  }

  /** `<parent>-staging`, or `-staging-2`, `-3` … when taken (by any company): the first free one. */
  async function freeSubdomain (em: EntityManager, parent: Instance): Promise<string> {
    for (let n = 1; n <= MAX_TRIES; n++) {
      const candidate = stagingSubdomain(parent.subdomain, n)
      if (await em.count(Instance, { subdomain: candidate }, ACROSS_TENANTS) === 0) return candidate
    }
    // Past that many, the creation answers SUBDOMAIN_TAKEN for the last one: the caller names one.
    return stagingSubdomain(parent.subdomain, MAX_TRIES)
  }

  /** The parent's backup under way (a copy waits for it rather than taking a second), else a new one queued in `tx`. */
  async function freshBackup (tx: EntityManager, actor: Actor, parent: Instance): Promise<number> {
    const running = await tx.findOne(Backup, { instance: parent.id, state: { $in: [...ACTIVE_BACKUP_STATES] } })
    if (running !== null) return running.id
    return (await deps.backups.queueIn(tx, actor, parent, 'manual')).id
  }

  /** A fresh backup of the parent can be taken: it is in a steady state and its backend's runner is ready. */
  async function backupPossible (parent: Instance): Promise<void> {
    if (parent.state === 'deleted' || parent.state === 'deleting') throw InstanceDeleted('The instance was deleted')
    if (!STEADY_STATES.includes(parent.state)) throw InstanceBusy(`The instance is ${parent.state}: make the staging copy when that finishes`, { state: parent.state })
    await deps.runners.ready(parent)
  }

  return {
    /** A new staging copy of `parentId` in `restoring` (202); the restore job makes, fills, neutralizes and starts it. */
    async create ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, parentId: number, request: CreateStagingRequest): Promise<InstanceDetailView> {
      requireAdmin(actor, 'make staging copies')
      const parent = await load(em, parentId)
      if (parent.kind === 'staging') throw StagingOfStaging(`${parent.name} is itself a staging copy: make the copy from its production instance (id ${parent.parent?.id ?? 'unknown'})`, { parent_id: parent.parent?.id ?? null })
      if (parent.state === 'deleted' || parent.state === 'deleting') throw InstanceDeleted('The instance was deleted: restore one of its backups as a new instance instead')
      let backup: Backup | undefined
      if (request.from_backup_id === undefined) {
        await backupPossible(parent)
      } else {
        backup = await deps.backups.backupOf(em, parentId, request.from_backup_id)
        await deps.restores.checkSource(backup, parent)
      }
      const name = request.name ?? `${parent.name.slice(0, 90)} (staging)`
      const subdomain = request.subdomain ?? await freeSubdomain(em, parent)
      const created = await deps.instances.createFor({ em, actor }, { name, subdomain, erp_version: backup?.erpVersion ?? parent.erpVersion, backend: parent.backend }, 'restoring', async (tx, copy) => {
        const backupId = backup?.id ?? await freshBackup(tx, actor, parent)
        activity.record(tx, actor, {
          type: 'instance.staging_created',
          title: `Staging copy ${copy.name} of ${parent.name} requested (from backup #${backupId})`,
          targetType: 'instance',
          targetId: String(copy.id),
          instanceId: copy.id
        })
        await tx.flush()
        const data: RestoreJobData = { action: 'restore', backupId, tenantId: actor.tenantId, instanceId: copy.id, targetInstanceId: copy.id, staging: 'create' }
        await jobs.send(tx, BACKUP_QUEUE, data)
      }, { parentId: parent.id, expiresAt: expiry() })
      jobs.wake(BACKUP_QUEUE)
      return created
    },

    /**
     * The copy's data replaced by a fresh backup of its production instance, in place (it keeps its
     * id, subdomain and URL), neutralized again before it starts; its expiry starts over.
     */
    async refresh ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: number): Promise<InstanceDetailView> {
      requireAdmin(actor, 'refresh staging copies')
      const copy = await load(em, id)
      if (copy.kind !== 'staging') throw InstanceNotStaging(`${copy.name} is a production instance: only a staging copy can be refreshed`)
      if (copy.state === 'deleted' || copy.state === 'deleting') throw InstanceDeleted('The staging copy was deleted')
      if (!STEADY_STATES.includes(copy.state)) throw InstanceBusy(`The staging copy is ${copy.state}: refresh it when that finishes`, { state: copy.state })
      const parent = copy.parent === null || copy.parent === undefined ? null : await em.findOne(Instance, copy.parent.id)
      if (parent === null || parent.state === 'deleted' || parent.state === 'deleting') throw StagingParentGone()
      await backupPossible(parent)
      const moved = await em.transactional(async (tx) => {
        const done = await transitions.moveIf(tx, actor, copy.id, STEADY_STATES, { to: 'restoring', title: `Staging copy ${copy.name} is being refreshed from ${parent.name}` })
        if (done === undefined) return false
        const backupId = await freshBackup(tx, actor, parent)
        done.expiresAt = expiry()
        done.expiryWarnedAt = null
        activity.record(tx, actor, {
          type: 'instance.staging_refreshed',
          title: `Refresh of staging copy ${copy.name} from ${parent.name} requested (backup #${backupId})`,
          targetType: 'instance',
          targetId: String(copy.id),
          instanceId: copy.id
        })
        await tx.flush()
        const data: RestoreJobData = { action: 'restore', backupId, tenantId: actor.tenantId, instanceId: copy.id, targetInstanceId: copy.id, staging: 'refresh' }
        await jobs.send(tx, BACKUP_QUEUE, data)
        return true
      })
      if (!moved) throw InstanceBusy('The staging copy started changing state meanwhile: try again when that finishes')
      jobs.wake(BACKUP_QUEUE)
      await em.refresh(copy)
      return deps.instances.get({ em }, copy.id)
    }
  }
}

export type StagingService = ReturnType<typeof createStagingService>
