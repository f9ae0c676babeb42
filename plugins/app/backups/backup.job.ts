/**
 * The backup job: dump the database and copy the filestore next to the
 * instance, pack them with their manifest, and store the archive under its
 * final name only once it is whole. Idempotent: it works only while the backup
 * is queued or running, and a retry after a crash starts the archive afresh
 * (the store drops what the killed attempt left). The last failed attempt
 * records the backup as failed with the reason.
 */
import { join } from 'node:path'
import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import { Instance } from '../instances/instance.entity.ts'
import { ARCHIVE_FORMAT, describeParts, PARTS, writeArchive, type BackupManifest } from './backup-archive.ts'
import { ACTIVE_BACKUP_STATES, Backup } from './backup.entity.ts'
import type { BackupRunners } from './backup-runners.ts'
import type { BackupStore } from './backup-store.ts'
import type { BackupJobData } from './backup.queue.ts'
import { instanceSpec } from '../instances/instance-spec.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import type { InstanceSpec } from '../../../provisioning/backend.ts'

export interface BackupJobDeps {
  em: EntityManager
  activity: ActivityService
  runners: BackupRunners
  store: BackupStore
  databases: ErpDatabasesPort
  instancesDomain: string
  log: FastifyBaseLogger
}

export function createBackupJob (deps: BackupJobDeps) {
  const { runners, store, activity, log } = deps

  async function load (tenantId: string, backupId: number): Promise<{ em: EntityManager, backup: Backup | null }> {
    const em = scopedEntityManager(deps.em, tenantId)
    return { em, backup: await em.findOne(Backup, backupId, { populate: ['instance', 'instance.tenant'] }) }
  }

  async function step (em: EntityManager, backup: Backup, text: string): Promise<void> {
    backup.step = text
    await em.flush()
  }

  /** Moves the backup out of `running` exactly once, with its activity record. */
  async function finish (tenantId: string, backupId: number, done: (backup: Backup, tx: EntityManager) => { type: ActivityType, title: string }): Promise<void> {
    const actor: SystemActor = { kind: 'system', tenantId, job: 'backup' }
    await scopedEntityManager(deps.em, tenantId).transactional(async (tx) => {
      const backup = await tx.findOne(Backup, backupId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
      if (backup === null || !ACTIVE_BACKUP_STATES.includes(backup.state)) return
      await tx.findOneOrFail(Instance, backup.instance.id)
      const { type, title } = done(backup, tx)
      backup.step = null
      activity.record(tx, actor, { type, title, targetType: 'backup', targetId: String(backup.id), instanceId: backup.instance.id })
      await tx.flush()
    })
  }

  /** Dump and filestore through the backend's runner into scratch files, then the archive into the store. */
  async function archiveHere (em: EntityManager, backup: Backup, spec: InstanceSpec, pgMajor: number, head: Omit<BackupManifest, 'parts'>): Promise<{ key: string, bytes: number, sha256: string }> {
    const runner = runners.runnerOf(backup.instance)
    const scratch = await store.scratch(`backup-${backup.id}`)
    try {
      await step(em, backup, 'dumping the database')
      await runner.dumpDatabase(spec, pgMajor, join(scratch.dir, PARTS.database))
      await step(em, backup, 'copying the filestore')
      await runner.exportFilestore(spec, pgMajor, join(scratch.dir, PARTS.filestore))
      await step(em, backup, 'writing the archive')
      const manifest: BackupManifest = { ...head, parts: await describeParts(scratch.dir) }
      const key = store.keyFor(backup.tenant.id, backup.instance.id, backup.id)
      const written = await store.save(key, (file) => writeArchive(file, manifest, scratch.dir))
      return { key, ...written }
    } finally {
      await scratch.done()
    }
  }

  return async function backupJob (job: JobWithMetadata<BackupJobData>): Promise<void> {
    const { backupId, tenantId } = job.data
    const { em, backup } = await load(tenantId, backupId)
    if (backup === null || !ACTIVE_BACKUP_STATES.includes(backup.state)) return
    const instance = backup.instance
    const jobLog = log.child({ ...jobLogBindings(job), instance_id: instance.id })
    try {
      backup.state = 'running'
      backup.startedAt ??= new Date()
      const pgMajor = await runners.serverMajor()
      const spec = await instanceSpec(instance, deps.databases, deps.instancesDomain)
      const manifest: Omit<BackupManifest, 'parts'> = {
        format: ARCHIVE_FORMAT,
        backup_id: backup.id,
        created_at: backup.createdAt.toISOString(),
        instance: { id: instance.id, name: instance.name, subdomain: instance.subdomain },
        tenant: { id: instance.tenant.id, subdomain: instance.tenant.subdomain },
        erp_version: instance.erpVersion,
        pg_major: pgMajor
      }
      const cluster = runners.clusterRunnerOf(instance)
      let archive: { key: string, bytes: number, sha256: string }
      if (cluster !== undefined) {
        await step(em, backup, 'running the backup job in the cluster')
        archive = await cluster.archive(spec, pgMajor, { backupId: backup.id, manifest: { ...manifest } })
      } else {
        archive = await archiveHere(em, backup, spec, pgMajor, manifest)
      }
      await finish(tenantId, backupId, (done) => {
        const completedAt = new Date()
        Object.assign(done, { state: 'completed', completedAt, sizeBytes: archive.bytes, archiveSha256: archive.sha256, archiveKey: archive.key, pgMajor, error: null })
        done.instance.lastBackupAt = completedAt
        return { type: 'backup.completed', title: `Backup #${done.id} of ${done.instance.name} completed (${archive.bytes} bytes)` }
      })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const last = job.retryCount >= job.retryLimit
      jobLog.warn({ err: error, backupId, attempt: job.retryCount + 1, last }, 'Backup attempt failed')
      if (!last) throw error
      await finish(tenantId, backupId, (done) => {
        Object.assign(done, { state: 'failed', error: message.slice(0, 1000), completedAt: new Date() })
        return { type: 'backup.failed', title: `Backup #${done.id} of ${done.instance.name} failed: ${message}` }
      })
    }
  }
}
