import fp from 'fastify-plugin'
import { accountLinks } from '../../../lib/account-links.ts'
import { createTwoFactorResetService, type TwoFactorResetService } from './two-factor-reset.service.ts'
import { createTwoFactorService, type TwoFactorService } from './two-factor.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    twoFactor: TwoFactorService & TwoFactorResetService
  }
}

/** A second factor for people's accounts: TOTP codes from an authenticator app, recovery codes, and an administrator's reset. */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  const twoFactor = createTwoFactorService({
    activity: fastify.activity,
    secret: config.JWT_SECRET,
    issuer: config.PRODUCT_NAME
  })
  const reset = createTwoFactorResetService({
    em: fastify.orm.em,
    activity: fastify.activity,
    mail: fastify.mail,
    grants: fastify.oauth.grants,
    links: accountLinks(config),
    requiredByCompany: twoFactor.requiredByCompany,
    product: config.PRODUCT_NAME
  })
  fastify.decorate('twoFactor', { ...twoFactor, ...reset })
}, { name: 'two-factor', dependencies: ['orm', 'env', 'activity', 'mail', 'oauth'] })
