/**
 * The upgrade job (docs/upgrades.md), one per upgrade, moving it through its steps:
 *
 * - `backup` (apply): waits for the rollback point, a backup of the instance, by sending itself
 *   again a little later (a live job stays queued all along); a failed backup fails the upgrade
 *   and gives the instance back untouched.
 * - `staging` (test): waits the same way for the staging copy to run; a copy that could not be
 *   made fails the upgrade.
 * - `upgrade`: the instance (or the copy) is stopped, the configured command runs to its end in a
 *   one-off container or Job from the target's image on its database and volume, the instance's
 *   server is made to run the target's image and started, and it is checked as any start is
 *   (running on its backend, its ERP administrator's password). Then `erp_version` and `image`
 *   change, and the instance is `running` again.
 * - On any failure in `upgrade`, apply goes to `rollback`: the server is put back on the old
 *   image, the instance moves to `restoring` and the restore job loads the rollback point in place
 *   and starts it; this job waits for that and records `rolled_back` (or `failed` when the restore
 *   failed too). A test leaves the copy stopped in `error` for inspection.
 *
 * Idempotent: a job that finds its upgrade finished does nothing, and one that finds the step
 * `upgrade` already begun (a crash or expiry mid-command) does not run the command again on a
 * database it may have half changed: it rolls back.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import { OneOffFailedError } from '../../../provisioning/one-off-run.ts'
import { imageFor } from '../../../provisioning/image-template.ts'
import type { Jobs } from '../../external/jobs.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { ACTIVE_BACKUP_STATES, Backup } from '../backups/backup.entity.ts'
import { BACKUP_QUEUE, type RestoreJobData } from '../backups/backup.queue.ts'
import type { InstanceLifecycle } from '../instances/instance-lifecycle.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import { upgradeRun, type UpgradeCommands } from './upgrade-commands.ts'
import { InstanceUpgrade } from './upgrade.entity.ts'
import { failedModules, LOG_TAIL_LINES, logTail, modulesLeftBehind } from './upgrade-output.ts'
import { UPGRADE_QUEUE, type UpgradeJobData } from './upgrade.queue.ts'

export interface UpgradeJobDeps {
  em: EntityManager
  activity: ActivityService
  transitions: InstanceTransitions
  lifecycle: InstanceLifecycle
  jobs: Pick<Jobs, 'send' | 'wake'>
  commands: UpgradeCommands
  /** ERP_IMAGE: the image an instance of a version runs. */
  imageTemplate: string
  /** Bound on one upgrade command. */
  timeoutMs: number
  log: FastifyBaseLogger
  /** How long the job waits before looking again at a backup, a copy or a rollback under way. */
  waitSeconds?: number
}

const DURING = 'upgrading'
const MESSAGE_MAX = 1000

export function createUpgradeJob (deps: UpgradeJobDeps) {
  const { activity, transitions, lifecycle } = deps
  const waitSeconds = deps.waitSeconds ?? 2

  return async function upgradeJob (job: JobWithMetadata<UpgradeJobData>): Promise<void> {
    const { upgradeId, tenantId } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'instance-upgrade' }
    const em = scopedEntityManager(deps.em.fork(), tenantId)
    const upgrade = await em.findOne(InstanceUpgrade, upgradeId, { populate: ['instance', 'instance.tenant', 'stagingInstance', 'stagingInstance.tenant'] })
    if (upgrade === null || (upgrade.state !== 'queued' && upgrade.state !== 'running')) return
    const jobLog = deps.log.child({ ...jobLogBindings(job), upgrade_id: upgrade.id })
    const target = upgrade.mode === 'apply' ? upgrade.instance : upgrade.stagingInstance
    if (target == null) return

    const record = (tx: EntityManager, type: ActivityType, title: string): void => {
      activity.record(tx, actor, { type, title: title.slice(0, 300), targetType: 'upgrade', targetId: String(upgrade.id), instanceId: upgrade.instance.id })
    }
    const again = async (): Promise<void> => {
      await em.transactional(async (tx) => { await deps.jobs.send(tx, UPGRADE_QUEUE, job.data, { startAfter: waitSeconds }) })
    }
    const finish = (fields: Partial<InstanceUpgrade>): void => {
      const finishedAt = new Date()
      Object.assign(upgrade, { finishedAt, step: 'done', ...(upgrade.startedAt == null ? {} : { duration: finishedAt.getTime() - new Date(upgrade.startedAt).getTime() }), ...fields })
    }
    const begin = async (): Promise<void> => {
      upgrade.state = 'running'
      upgrade.step = 'upgrade'
      upgrade.startedAt ??= new Date()
      await em.flush()
    }

    /** Records the failure; apply hands the instance to the restore of its rollback point, a test leaves its copy in `error`. */
    const fail = async (error: unknown, out: string): Promise<void> => {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, MESSAGE_MAX)
      jobLog.warn({ err: error }, 'Upgrade failed')
      const fields = { logTail: out === '' ? upgrade.logTail ?? null : logTail(out), failedModules: out === '' ? upgrade.failedModules : failedModules(out), error: message }
      if (upgrade.mode === 'test') {
        await em.transactional(async (tx) => {
          await transitions.moveIf(tx, actor, target.id, [DURING], { to: 'error', message: `Test upgrade to ${upgrade.targetVersion} failed: ${message}` })
          finish({ state: 'failed', ...fields })
          record(tx, 'instance.upgrade_failed', `Test upgrade of ${upgrade.instance.name} to ${upgrade.targetVersion} failed: ${message}`)
          await tx.flush()
        })
        return
      }
      // The server back on the old version's image: the restore starts what is there.
      try {
        const spec = await lifecycle.specOf(em, target, 'start')
        const backend = lifecycle.backendOf(target)
        await backend.stop(spec)
        await backend.changeImage?.(spec)
      } catch (resetError) {
        jobLog.warn({ err: resetError }, 'The server could not be put back on its old image before the rollback')
      }
      await em.transactional(async (tx) => {
        const moved = await transitions.moveIf(tx, actor, target.id, [DURING], {
          to: 'restoring', title: `Upgrade of ${target.name} to ${upgrade.targetVersion} failed: rolling back to backup #${upgrade.rollbackBackupId ?? '?'}`
        })
        Object.assign(upgrade, { ...fields, state: 'running', step: 'rollback' })
        record(tx, 'instance.upgrade_failed', `Upgrade of ${target.name} to ${upgrade.targetVersion} failed: ${message}`)
        await tx.flush()
        if (moved !== undefined && upgrade.rollbackBackupId != null) {
          const restore: RestoreJobData = { action: 'restore', backupId: upgrade.rollbackBackupId, tenantId, instanceId: target.id }
          await deps.jobs.send(tx, BACKUP_QUEUE, restore)
        }
        await deps.jobs.send(tx, UPGRADE_QUEUE, job.data, { startAfter: waitSeconds })
      })
      deps.jobs.wake(BACKUP_QUEUE)
    }

    /** The rollback's restore under way: looked at again later; its end recorded. */
    const watchRollback = async (): Promise<void> => {
      await em.refresh(target)
      if (target.state === 'restoring') return again()
      await em.transactional(async (tx) => {
        if (target.state === 'running') {
          finish({ state: 'rolled_back' })
          record(tx, 'instance.upgrade_rolled_back', `Upgrade of ${target.name} to ${upgrade.targetVersion} rolled back: it runs ${upgrade.fromVersion} on the data of backup #${upgrade.rollbackBackupId ?? '?'}`)
        } else {
          const why = `the rollback to backup #${upgrade.rollbackBackupId ?? '?'} left the instance ${target.state}${target.statusMessage == null ? '' : `: ${target.statusMessage}`}`
          finish({ state: 'failed', error: `${upgrade.error ?? 'Upgrade failed'}; ${why}`.slice(0, MESSAGE_MAX) })
          record(tx, 'instance.upgrade_failed', `Rollback of the upgrade of ${target.name} failed: ${why}`)
        }
        await tx.flush()
      })
    }

    if (upgrade.step === 'backup') {
      const backup = upgrade.rollbackBackupId == null ? null : await em.findOne(Backup, upgrade.rollbackBackupId)
      if (backup !== null && ACTIVE_BACKUP_STATES.includes(backup.state)) return again()
      if (backup === null || backup.state !== 'completed') {
        const why = `its rollback point, backup #${upgrade.rollbackBackupId ?? '?'}, ${backup === null ? 'is gone' : `${backup.state}${backup.error == null ? '' : `: ${backup.error}`}`}`
        await em.transactional(async (tx) => {
          const back = target.status === 'stopped' ? 'stopped' : 'running'
          await transitions.moveIf(tx, actor, target.id, [DURING], { to: back, title: `Upgrade of ${target.name} not started: ${why}` })
          finish({ state: 'failed', error: `Not started: ${why}`.slice(0, MESSAGE_MAX) })
          record(tx, 'instance.upgrade_failed', `Upgrade of ${target.name} to ${upgrade.targetVersion} not started: ${why}`)
          await tx.flush()
        })
        return
      }
      await begin()
    } else if (upgrade.step === 'staging') {
      await em.refresh(target)
      if (target.state === 'restoring') return again()
      if (target.state !== 'running' && target.state !== 'stopped') {
        const why = `the staging copy ${target.name} is ${target.state}${target.statusMessage == null ? '' : `: ${target.statusMessage}`}`
        await em.transactional(async (tx) => {
          finish({ state: 'failed', error: `Not started: ${why}`.slice(0, MESSAGE_MAX) })
          record(tx, 'instance.upgrade_failed', `Test upgrade of ${upgrade.instance.name} to ${upgrade.targetVersion} not started: ${why}`)
          await tx.flush()
        })
        return
      }
      const held = await em.transactional(async (tx) => transitions.moveIf(tx, actor, target.id, ['running', 'stopped'], {
        to: DURING, title: `Staging copy ${target.name} is being upgraded to ${upgrade.targetVersion} (a test)`
      }))
      if (held === undefined) return again()
      await begin()
    } else if (upgrade.step === 'upgrade') {
      // Begun by an attempt that did not finish: the database may be half changed. Never run twice.
      return fail(new Error('The upgrade attempt was interrupted before it finished'), '')
    } else if (upgrade.step === 'rollback') {
      return watchRollback()
    }

    let output = ''
    try {
      await em.refresh(target)
      if (target.state !== DURING) throw new Error(`${target.name} is ${target.state}, no longer held for the upgrade`)
      const entry = deps.commands.get(upgrade.targetVersion)
      if (entry === undefined) throw new Error(`No upgrade command is configured for ${upgrade.targetVersion} any more (ERP_UPGRADE_COMMANDS)`)
      const backend = lifecycle.backendOf(target)
      if (backend.runOneOff === undefined) throw new Error(`The ${backend.name} backend cannot run upgrade commands`)
      const spec = await lifecycle.specOf(em, target, 'start')
      const waits = { during: DURING, signal: job.signal } as const
      await backend.stop(spec)
      await lifecycle.waitFor(target, spec, 'idle', waits)
      const run = upgradeRun(entry, { database: spec.database.name, from: upgrade.fromVersion, target: upgrade.targetVersion })
      try {
        output = (await backend.runOneOff(spec, { name: 'upgrade', what: 'upgrade', command: run.command, image: run.image, timeoutMs: deps.timeoutMs, tailLines: LOG_TAIL_LINES })).output
      } catch (error) {
        if (error instanceof OneOffFailedError) output = error.output
        throw error
      }
      // Odoo skips a module it cannot find and still exits 0, leaving it half-updated: not a success.
      const leftBehind = modulesLeftBehind(output)
      if (leftBehind.length > 0) throw new Error(`The upgrade left modules the ERP could not load: ${leftBehind.join(', ')} (are they in the target's addons path?)`)
      const upgraded = { ...spec, erpVersion: upgrade.targetVersion }
      await backend.changeImage?.(upgraded)
      await backend.start(upgraded)
      await lifecycle.waitFor(target, upgraded, 'running', waits)
      await lifecycle.beforeRunning(em, target)
    } catch (error) {
      return fail(error, output)
    }
    await em.transactional(async (tx) => {
      const moved = await transitions.moveIf(tx, actor, target.id, [DURING], { to: 'running' })
      if (moved === undefined) {
        // Taken from the job meanwhile (the abandoned-jobs check): said so rather than left running.
        finish({ state: 'failed', logTail: logTail(output), failedModules: failedModules(output), error: `${target.name} left the upgrading state before the upgrade was recorded` })
        await tx.flush()
        return
      }
      moved.erpVersion = upgrade.targetVersion
      moved.image = imageFor(deps.imageTemplate, upgrade.targetVersion)
      finish({ state: 'succeeded', logTail: logTail(output), failedModules: failedModules(output), error: null })
      record(tx, 'instance.upgraded', upgrade.mode === 'apply'
        ? `${target.name} upgraded from ${upgrade.fromVersion} to ${upgrade.targetVersion}`
        : `Test upgrade of ${upgrade.instance.name} to ${upgrade.targetVersion} succeeded on its staging copy ${target.name}`)
      await tx.flush()
    })
  }
}
