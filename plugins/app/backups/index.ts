import { join, resolve } from 'node:path'
import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createBackupJob } from './backup-jobs.ts'
import { createBackupRunners } from './backup-runners.ts'
import { createFileBackupStore } from './backup-store.ts'
import { BACKUP_QUEUE, createBackupsService, type BackupJobData, type BackupsService } from './backups.service.ts'
import { createServerMajor } from './erp-server.ts'
import { createInstanceTransitions } from '../instances/instance-transitions.ts'
import { createRestoreJob } from './restore-job.ts'
import { createRestoreService, type RestoreService } from './restore.service.ts'
import { createDownloadLinks, type DownloadLinks } from './download-links.ts'
import { BACKUP_SCHEDULER_JOB, createBackupScheduler } from './backup-scheduler.ts'
import { createSchedulesService, type SchedulesService } from './schedules.service.ts'

/** How often the scheduler looks for due schedules and expired backups. */
const SCHEDULER_SECONDS = 300

declare module 'fastify' {
  interface FastifyInstance {
    /** An instance's backup archives, restoring them, their daily schedule, and download links to them. */
    backups: { archives: BackupsService, restores: RestoreService, schedules: SchedulesService, links: DownloadLinks }
  }
}

/**
 * Backups: the services behind the REST routes, the job that dumps an
 * instance's database and filestore into one archive in the backup store,
 * and the job that restores an archive in place.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const store = createFileBackupStore(resolve(config.BACKUP_DIR ?? join(config.DATA_DIR, 'backups')))
  const runners = createBackupRunners({
    backends: fastify.instances.backends,
    serverMajor: createServerMajor(config.ERP_DATABASE_URL ?? orm.config.get('clientUrl') as string)
  })
  const service = createBackupsService({ jobs: fastify.jobs, activity: fastify.activity, runners, store })
  const transitions = createInstanceTransitions({ activity: fastify.activity })
  const restore = createRestoreService({ jobs: fastify.jobs, activity: fastify.activity, transitions, runners, store, backups: service, instances: fastify.instances })
  const restoreJob = createRestoreJob({
    em: orm.em,
    activity: fastify.activity,
    transitions,
    backends: fastify.instances.backends,
    runners,
    store,
    databases: fastify.instances.databases,
    instancesDomain: config.INSTANCES_DOMAIN,
    readyTimeoutMs: config.INSTANCE_READY_TIMEOUT_SECONDS * 1000,
    credentials: fastify.instances.erpCredentials,
    beforeRunning: fastify.instances.erpAdmin.secure,
    log: fastify.log.child({ component: 'restore-jobs' })
  })
  const backupJob = createBackupJob({
    em: orm.em,
    activity: fastify.activity,
    runners,
    store,
    databases: fastify.instances.databases,
    instancesDomain: config.INSTANCES_DOMAIN,
    log: fastify.log.child({ component: 'backup-jobs' })
  })
  await fastify.jobs.define<BackupJobData>(BACKUP_QUEUE, {
    retryLimit: config.BACKUP_JOB_RETRIES,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 300,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
    expireInSeconds: 6 * 3600
  }, async (job) => job.data.action === 'restore' ? restoreJob(job) : backupJob(job))
  const links = createDownloadLinks({ activity: fastify.activity, backups: service, baseUrl: config.BASE_URL })
  const schedules = createSchedulesService({ activity: fastify.activity })
  fastify.jobs.every(BACKUP_SCHEDULER_JOB, SCHEDULER_SECONDS, createBackupScheduler({
    em: orm.em, sql: fastify.sql, backups: service, sweep: runners.sweep, log: fastify.log.child({ component: 'backup-scheduler' })
  }).run)
  fastify.decorate('backups', { archives: service, restores: restore, schedules, links })
}, { name: 'backups', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances'] })
