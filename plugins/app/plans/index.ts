import fp from 'fastify-plugin'
import { createPlansService, type PlansService } from './plans.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    plans: PlansService
  }
}

/** The plan catalog (reference data, seeded by `seedPlans`) and the plan recommendation. */
export default fp(async (fastify) => {
  fastify.decorate('plans', createPlansService({ sql: fastify.sql }))
}, { name: 'plans', dependencies: ['orm'] })
