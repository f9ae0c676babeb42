import fp from 'fastify-plugin'
import { createLimitsService, type LimitsService } from './limits.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    limits: LimitsService
  }
}

/** The quantities a subscription sets (users, instances), enforced where things are added. */
export default fp(async (fastify) => {
  fastify.decorate('limits', createLimitsService())
}, { name: 'limits', dependencies: ['orm'] })
