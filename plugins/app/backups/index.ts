import { join, resolve } from 'node:path'
import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createBackupJob } from './backup.job.ts'
import { createBackupRunners, type BackupRunners } from './backup-runners.ts'
import { createFileBackupStore } from './backup-store.ts'
import { createBackupsService, type BackupsService } from './backups.service.ts'
import { BACKUP_QUEUE } from './backup.queue.ts'
import { createServerMajor } from './erp-server.ts'
import { createInstanceTransitions } from '../instances/instance-transitions.ts'
import { createRestoreJob } from './restore.job.ts'
import { createRestoreService, type RestoreService } from './restore.service.ts'
import { createDownloadLinks, type DownloadLinks } from './download-links.ts'
import { BACKUP_SCHEDULER_JOB, createBackupScheduler } from './backup-scheduler.job.ts'
import { createSchedulesService, type SchedulesService } from './schedules.service.ts'

/** How often the scheduler looks for due schedules and expired backups. */
const SCHEDULER_SECONDS = 300

declare module 'fastify' {
  interface FastifyInstance {
    /** An instance's backup archives, restoring them, their daily schedule, and download links to them. */
    backups: { archives: BackupsService, restores: RestoreService, schedules: SchedulesService, links: DownloadLinks, runners: BackupRunners }
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
    runners,
    store,
    databases: fastify.instances.databases,
    lifecycle: fastify.instances.lifecycle,
    log: fastify.log.child({ component: 'restore-jobs' }),
    jobs: fastify.jobs,
    imageTemplate: config.ERP_IMAGE
  })
  // A restore (in place or as a new instance) holds its instance `restoring`: one whose job ended without finishing goes to `error`.
  fastify.instances.sweepAbandoned(BACKUP_QUEUE.name, ['restoring'])
  const backupJob = createBackupJob({
    em: orm.em,
    activity: fastify.activity,
    runners,
    store,
    databases: fastify.instances.databases,
    instancesDomain: config.INSTANCES_DOMAIN,
    log: fastify.log.child({ component: 'backup-jobs' })
  })
  await fastify.jobs.define(BACKUP_QUEUE, async (job) => {
    const { data } = job // narrowed on its action: each job function takes its own branch
    return data.action === 'restore' ? restoreJob({ ...job, data }) : backupJob({ ...job, data })
  })
  const links = createDownloadLinks({ activity: fastify.activity, backups: service, baseUrl: config.BASE_URL })
  const schedules = createSchedulesService({ activity: fastify.activity })
  fastify.jobs.every(BACKUP_SCHEDULER_JOB, SCHEDULER_SECONDS, createBackupScheduler({
    em: orm.em, sql: fastify.sql, backups: service, sweep: runners.sweep, log: fastify.log.child({ component: 'backup-scheduler' })
  }).run)
  fastify.decorate('backups', { archives: service, restores: restore, schedules, links, runners })
}, { name: 'backups', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances'] })
