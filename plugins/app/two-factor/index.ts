import fp from 'fastify-plugin'
import { createTwoFactorService, type TwoFactorService } from './two-factor.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    twoFactor: TwoFactorService
  }
}

/** A second factor for people's accounts: TOTP codes from an authenticator app, and recovery codes. */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  fastify.decorate('twoFactor', createTwoFactorService({
    activity: fastify.activity,
    secret: config.JWT_SECRET,
    issuer: config.PRODUCT_NAME
  }))
}, { name: 'two-factor', dependencies: ['orm', 'env', 'activity'] })
