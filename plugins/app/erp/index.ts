import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { createErpAccess, type ErpAccess } from './erp-access.ts'
import { createErpModuleJob } from './erp-module.job.ts'
import { ERP_MODULE_QUEUE, ERP_MODULE_UNINSTALL_QUEUE } from './erp-module.queue.ts'
import { createErpModuleUninstallJob } from './erp-module-uninstall.job.ts'
import { createErpModulesService, type ErpModulesService } from './erp-modules.service.ts'
import { createErpUserJob } from './erp-user.job.ts'
import { ERP_USER_QUEUE } from './erp-user.queue.ts'
import { createErpUsersService, type ErpUsersService } from './erp-users.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    erp: { users: ErpUsersService, modules: ErpModulesService, access: ErpAccess }
  }
}

/**
 * Inside the instances: their ERP's users (read live through the ERP adapter) and invitations
 * to an instance, whose ERP user a job creates once the person accepted; catalog modules assigned
 * to an instance, installed and uninstalled through the ERP by jobs.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const access = createErpAccess({ admin: fastify.instances.erpAdmin, log: fastify.log.child({ component: 'erp' }) })
  const users = createErpUsersService({ access, jobs: fastify.jobs, activity: fastify.activity, invitations: fastify.invitations })
  const job = createErpUserJob({ em: orm.em, access, activity: fastify.activity, log: fastify.log.child({ component: 'erp-user-jobs' }) })
  await fastify.jobs.define(ERP_USER_QUEUE, job)
  const modules = createErpModulesService({ jobs: fastify.jobs, activity: fastify.activity, erpEdition: config.ERP_EDITION, access })
  const bounds = { timeoutMs: config.ERP_INSTALL_TIMEOUT_SECONDS * 1000, pollMs: 2000 }
  await fastify.jobs.define(ERP_MODULE_QUEUE, createErpModuleJob({
    em: orm.em,
    access,
    activity: fastify.activity,
    install: bounds,
    log: fastify.log.child({ component: 'erp-module-jobs' })
  }))
  await fastify.jobs.define(ERP_MODULE_UNINSTALL_QUEUE, createErpModuleUninstallJob({
    em: orm.em,
    access,
    activity: fastify.activity,
    bounds,
    log: fastify.log.child({ component: 'erp-module-jobs' })
  }))
  fastify.decorate('erp', { users, modules, access })
}, { name: 'erp', dependencies: ['env', 'orm', 'jobs', 'activity', 'instances', 'invitations'] })
