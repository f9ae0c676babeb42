import fp from 'fastify-plugin'
import { createSettingsService, type SettingsService } from './settings.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    settings: SettingsService
  }
}

/** Company details and notification preferences of the caller's tenant. */
export default fp(async (fastify) => {
  fastify.decorate('settings', createSettingsService({ activity: fastify.activity }))
}, { name: 'settings', dependencies: ['orm', 'activity'] })
