import fp from 'fastify-plugin'
import { productName } from './invitation-mail.ts'
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
    issueSession: fastify.auth.issueSession,
    limits: fastify.limits,
    jobs: fastify.jobs,
    ttlDays: config.INVITATION_TTL_DAYS,
    baseUrl: config.BASE_URL,
    product: productName(config.MAIL_FROM)
  }))
}, { name: 'invitations', dependencies: ['orm', 'env', 'auth', 'activity', 'mail', 'limits', 'jobs'] })
