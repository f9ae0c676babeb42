import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createInstanceTransitions } from '../instances/instance-transitions.ts'
import { createStagingService, type StagingService } from './staging.service.ts'
import { createStagingExpiry, STAGING_EXPIRY_JOB } from './staging-expiry.job.ts'

/** How often the expiry pass looks for staging copies to warn about or delete. */
const EXPIRY_SECONDS = 600

declare module 'fastify' {
  interface FastifyInstance {
    /** Staging copies: made, refreshed, and (the expiry pass) warned about and deleted. */
    staging: StagingService & { expireNow: () => Promise<{ warned: number, deleted: number }> }
  }
}

/**
 * Staging copies (docs/staging.md): the service behind the REST routes and MCP tools, and the
 * scheduled pass that warns before a copy expires and deletes it once it has.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const service = createStagingService({
    jobs: fastify.jobs,
    activity: fastify.activity,
    transitions: createInstanceTransitions({ activity: fastify.activity }),
    runners: fastify.backups.runners,
    backups: fastify.backups.archives,
    restores: fastify.backups.restores,
    instances: fastify.instances,
    ttlDays: config.STAGING_TTL_DAYS
  })
  const expiry = fastify.jobs.every(STAGING_EXPIRY_JOB, EXPIRY_SECONDS, createStagingExpiry({
    em: orm.em,
    sql: fastify.sql,
    activity: fastify.activity,
    mail: fastify.mail,
    instances: fastify.instances,
    baseUrl: config.BASE_URL,
    log: fastify.log.child({ component: 'staging-expiry' })
  }).run)
  fastify.decorate('staging', { ...service, expireNow: expiry.runNow })
}, { name: 'staging', dependencies: ['env', 'orm', 'jobs', 'activity', 'mail', 'instances', 'backups'] })
