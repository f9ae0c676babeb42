import fp from 'fastify-plugin'
import { createDashboardService, type DashboardService } from './dashboard.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    dashboard: DashboardService
  }
}

export default fp(async (fastify) => {
  fastify.decorate('dashboard', createDashboardService())
}, { name: 'dashboard', dependencies: ['orm'] })
