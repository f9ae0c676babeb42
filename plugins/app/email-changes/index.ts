import fp from 'fastify-plugin'
import { accountLinks } from '../../../lib/account-links.ts'
import { createEmailChangesService, type EmailChangesService } from './email-changes.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    emailChanges: EmailChangesService
  }
}

/** A person's change of their own e-mail address, confirmed by a link to the new one. */
export default fp(async (fastify) => {
  const { config } = fastify
  fastify.decorate('emailChanges', createEmailChangesService({
    activity: fastify.activity,
    mail: fastify.mail,
    links: accountLinks(config),
    product: config.PRODUCT_NAME,
    ttlMinutes: config.EMAIL_CHANGE_TTL_MINUTES
  }))
}, { name: 'email-changes', dependencies: ['env', 'activity', 'mail'] })
