import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createErpAccess, type ErpAccess } from './erp-access.ts'
import { createErpModuleJob } from './erp-module-job.ts'
import { createErpModulesService, ERP_MODULE_QUEUE, type ErpModuleJobData, type ErpModulesService } from './erp-modules.service.ts'
import { createErpUserJob, ERP_USER_QUEUE, type ErpUserJobData } from './erp-user-job.ts'
import { createErpUsersService, type ErpUsersService } from './erp-users.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    erp: { users: ErpUsersService, modules: ErpModulesService, access: ErpAccess }
  }
}

/**
 * Inside the instances: their ERP's users (read live through the ERP adapter) and invitations
 * to an instance, whose ERP user a job creates once the person accepted; catalog modules assigned
 * to an instance, installed through the ERP by a job.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const access = createErpAccess({ admin: fastify.instances.erpAdmin, log: fastify.log.child({ component: 'erp' }) })
  const users = createErpUsersService({ access, jobs: fastify.jobs, activity: fastify.activity, invitations: fastify.invitations })
  const job = createErpUserJob({ em: orm.em, access, activity: fastify.activity, log: fastify.log.child({ component: 'erp-user-jobs' }) })
  await fastify.jobs.define<ErpUserJobData>(ERP_USER_QUEUE, {
    retryLimit: config.ERP_USER_JOB_RETRIES,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 900,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
    expireInSeconds: 600
  }, job)
  const modules = createErpModulesService({ jobs: fastify.jobs, activity: fastify.activity, erpEdition: config.ERP_EDITION })
  await fastify.jobs.define<ErpModuleJobData>(ERP_MODULE_QUEUE, {
    retryLimit: config.ERP_USER_JOB_RETRIES,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 900,
    heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
    // An attempt may wait its whole install bound for the ERP, and more for opening it first.
    expireInSeconds: Math.max(1800, config.ERP_INSTALL_TIMEOUT_SECONDS * 2)
  }, createErpModuleJob({
    em: orm.em,
    access,
    activity: fastify.activity,
    install: { timeoutMs: config.ERP_INSTALL_TIMEOUT_SECONDS * 1000, pollMs: 2000 },
    log: fastify.log.child({ component: 'erp-module-jobs' })
  }))
  fastify.decorate('erp', { users, modules, access })
}, { name: 'erp', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances', 'invitations'] })
