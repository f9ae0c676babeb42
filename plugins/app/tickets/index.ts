import fp from 'fastify-plugin'
import { createSupportDesk, type SupportDesk } from './support-desk.ts'
import { createTicketsService, type TicketsService } from './tickets.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    tickets: TicketsService
    /** The support staff's side (operator routes); the support CLI builds the same from the same service. */
    supportDesk: SupportDesk
  }
}

export default fp(async (fastify) => {
  const tickets = createTicketsService({ activity: fastify.activity })
  fastify.decorate('tickets', tickets)
  fastify.decorate('supportDesk', createSupportDesk({ tickets }))
}, { name: 'tickets', dependencies: ['orm', 'activity'] })
