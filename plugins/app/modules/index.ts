import fp from 'fastify-plugin'
import { createModulesService, type ModulesService } from './modules.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    modules: ModulesService
  }
}

/** The catalog of installable ERP apps (reference data; seeded by `seedModuleCatalog`). */
export default fp(async (fastify) => {
  fastify.decorate('modules', createModulesService())
}, { name: 'modules', dependencies: ['orm'] })
