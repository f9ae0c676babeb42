/**
 * The restore-in-place job. The archive is unpacked and every part checked
 * against the manifest before the instance is touched; then the instance is
 * stopped, the backup loaded with pg_restore into a fresh database beside the
 * instance's, which takes its place only once the load succeeded (so a failed
 * load leaves the instance's data as it was, and tables made after the backup
 * do not survive a successful one), its filestore emptied and unpacked, and the
 * instance started again. Idempotent: it works only while
 * the instance is `restoring`, and each step converges when run again. The
 * last failed attempt puts the instance in `error` with the reason.
 */
import { join } from 'node:path'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { InstanceSpec, ObservedState, ProvisioningBackend } from '../../../provisioning/backend.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import type { InstanceTransitions } from '../instances/instance-transitions.ts'
import { PARTS, readArchive } from './backup-archive.ts'
import { Backup } from './backup.entity.ts'
import type { BackupRunners } from './backup-runners.ts'
import type { BackupStore } from './backup-store.ts'
import type { BackupJobData } from './backups.service.ts'
import { instanceSpec } from '../instances/instance-spec.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import { Instance } from '../instances/instance.entity.ts'
import { subscriptionSize, tenantQuota } from '../instances/instance-resources.ts'

export interface RestoreJobDeps {
  em: EntityManager
  activity: ActivityService
  transitions: InstanceTransitions
  backends: BackendRegistry
  runners: BackupRunners
  store: BackupStore
  databases: ErpDatabasesPort
  instancesDomain: string
  readyTimeoutMs: number
  /**
   * Once the restored instance runs, before it is reported so: its ERP gets its generated
   * administrator password again (the database holds the one it was backed up with).
   */
  beforeRunning?: (em: EntityManager, instance: Instance, restored: { from: Pick<Instance, 'id' | 'uid'> }) => Promise<void>
  pollMs?: number
  log: FastifyBaseLogger
}

export function createRestoreJob (deps: RestoreJobDeps) {
  const { runners, store, databases, activity, transitions, log } = deps
  const pollMs = deps.pollMs ?? 250

  async function until (backend: ProvisioningBackend, spec: InstanceSpec, states: ObservedState[], what: string, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + deps.readyTimeoutMs
    let seen = await backend.observe(spec)
    while (!states.includes(seen.state) && !(states.includes('stopped') && seen.exitCode !== undefined)) {
      if (Date.now() > deadline || signal.aborted) throw new Error(`The instance is not ${what} in time: the backend reports ${seen.state}${seen.message ? ` (${seen.message})` : ''}`)
      await new Promise((resolve) => setTimeout(resolve, pollMs))
      seen = await backend.observe(spec)
    }
  }

  async function provision (backend: ProvisioningBackend, spec: InstanceSpec, instance: Instance, signal: AbortSignal): Promise<void> {
    if (backend.ensureTenant !== undefined) {
      await backend.ensureTenant(spec.tenantSubdomain, spec.tenantId, tenantQuota(await subscriptionSize(scopedEntityManager(deps.em, instance.tenant.id), instance.tenant.id)))
    }
    await backend.provision(spec)
    await until(backend, spec, ['running'], 'running', signal)
  }

  return async function restoreJob (job: JobWithMetadata<BackupJobData>): Promise<void> {
    const { backupId, tenantId } = job.data
    const actor: SystemActor = { kind: 'system', tenantId, job: 'backup-restore' }
    const em = scopedEntityManager(deps.em, tenantId)
    const backup = await em.findOne(Backup, backupId, { populate: ['instance', 'instance.tenant'] })
    const target = job.data.targetInstanceId
    const instance = target === undefined ? backup?.instance : await em.findOne(Instance, target, { populate: ['tenant'] }) ?? undefined
    if (backup == null || instance === undefined || instance.state !== 'restoring' || backup.archiveKey == null) return
    const jobLog = log.child({ ...jobLogBindings(job), instance_id: instance.id })
    const asNew = target !== undefined
    const record = (tx: EntityManager, type: string, title: string): void => {
      activity.record(tx, actor, { type, title, targetType: 'backup', targetId: String(backup.id), instanceId: instance.id })
    }
    try {
      const backend = deps.backends.get(instance.backend)
      const runner = runners.runnerOf(instance)
      const pgMajor = await runners.serverMajor()
      const scratch = await store.scratch(`restore-${backup.id}`)
      try {
        await readArchive(store.localPath(backup.archiveKey), scratch.dir)
        const spec = await instanceSpec(instance, databases, deps.instancesDomain)
        if (asNew) await provision(backend, spec, instance, job.signal) // an instance like any other first, then its data
        await backend.stop(spec)
        await until(backend, spec, ['stopped', 'missing'], 'stopped', job.signal)
        // Loaded beside the instance's database, which is only replaced once the load has succeeded.
        const staged = await databases.stage(instance.uid)
        await runner.restoreDatabase({ ...spec, database: staged }, pgMajor, join(scratch.dir, PARTS.database))
        await databases.promote(instance.uid)
        await runner.importFilestore(spec, pgMajor, join(scratch.dir, PARTS.filestore))
        await backend.start(spec)
        await until(backend, spec, ['running'], 'running', job.signal)
      } finally {
        await scratch.done()
      }
      await deps.beforeRunning?.(scopedEntityManager(deps.em, tenantId), instance, { from: backup.instance })
      await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
        const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'running' })
        if (moved === undefined) return
        record(tx, 'backup.restored', asNew ? `${instance.name} made from backup #${backup.id} of ${backup.instance.name}` : `${instance.name} restored from backup #${backup.id}`)
        await tx.flush()
      })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const last = job.retryCount >= job.retryLimit
      jobLog.warn({ err: error, backupId, attempt: job.retryCount + 1, last }, 'Restore attempt failed')
      if (!last) throw error
      await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
        const moved = await transitions.moveIf(tx, actor, instance.id, ['restoring'], { to: 'error', message: `Restore from backup #${backup.id} failed: ${message}` })
        if (moved === undefined) return
        record(tx, 'backup.restore_failed', `Restore of ${instance.name} from backup #${backup.id} failed: ${message}`)
        await tx.flush()
      })
    }
  }
}
