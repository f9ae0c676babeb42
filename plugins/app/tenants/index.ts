import fp from 'fastify-plugin'
import { createTenantsService, type TenantsService } from './tenants.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    tenants: TenantsService
  }
}

export default fp(async (fastify) => {
  fastify.decorate('tenants', createTenantsService())
}, { name: 'tenants', dependencies: ['orm'] })
