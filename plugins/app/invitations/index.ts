import fp from 'fastify-plugin'
import { accountLinks } from '../../../lib/account-links.ts'
import { createInvitationsService, type InvitationsService } from './invitations.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    invitations: InvitationsService
  }
}

/** Team invitations: admins invite by e-mail, the invited person accepts with the link's token. */
export default fp(async (fastify) => {
  const { config } = fastify
  fastify.decorate('invitations', createInvitationsService({
    activity: fastify.activity,
    mail: fastify.mail,
    afterPassword: fastify.auth.afterPassword,
    limits: fastify.limits,
    jobs: fastify.jobs,
    ttlDays: config.INVITATION_TTL_DAYS,
    links: accountLinks(config),
    product: config.PRODUCT_NAME
  }))
}, { name: 'invitations', dependencies: ['orm', 'env', 'auth', 'activity', 'mail', 'limits', 'jobs'] })
