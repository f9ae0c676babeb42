import fp from 'fastify-plugin'
import type { MikroORM } from '@mikro-orm/postgresql'
import { accountLinks } from '../../../lib/account-links.ts'
import { createPasswordResetJob } from './password-reset.job.ts'
import { PASSWORD_RESET_QUEUE } from './password-reset.queue.ts'
import { createPasswordsService, type PasswordsService } from './passwords.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    passwords: PasswordsService
  }
}

/** Passwords: a person's own change, reset links by e-mail, and resets forced by an operator. */
export default fp(async (fastify) => {
  const { config } = fastify
  const orm: MikroORM = fastify.orm
  const passwords = createPasswordsService({
    em: orm.em,
    activity: fastify.activity,
    mail: fastify.mail,
    jobs: fastify.jobs,
    grants: fastify.oauth.grants,
    links: accountLinks(config),
    product: config.PRODUCT_NAME,
    ttlMinutes: config.PASSWORD_RESET_TTL_MINUTES
  })
  await fastify.jobs.define(PASSWORD_RESET_QUEUE, createPasswordResetJob({ issueByEmail: passwords.issueByEmail }))
  fastify.decorate('passwords', passwords)
}, { name: 'passwords', dependencies: ['env', 'orm', 'jobs', 'activity', 'mail', 'oauth'] })
