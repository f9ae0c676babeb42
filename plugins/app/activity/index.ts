import fp from 'fastify-plugin'
import { createActivityService, type ActivityService } from './activity.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    activity: ActivityService
  }
}

export default fp(async (fastify) => {
  fastify.decorate('activity', createActivityService())
}, { name: 'activity', dependencies: ['orm'] })
