import { join, resolve } from 'node:path'
import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createBackupJob } from './backup-jobs.ts'
import { createBackupRunners } from './backup-runners.ts'
import { createFileBackupStore, type BackupStore } from './backup-store.ts'
import { BACKUP_QUEUE, createBackupsService, type BackupJobData, type BackupsService } from './backups.service.ts'
import { createServerMajor } from './erp-server.ts'

declare module 'fastify' {
  interface FastifyInstance {
    backups: BackupsService & { store: BackupStore }
  }
}

/**
 * Backups: the service behind the REST routes, and the job that dumps an
 * instance's database and filestore into one archive in the backup store.
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
  }, async (job) => backupJob(job))
  fastify.decorate('backups', { ...service, store })
}, { name: 'backups', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances'] })
