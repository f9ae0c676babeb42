import fp from 'fastify-plugin'
import { resolveHandoffSecret } from '../../../auth-server/grant-store.ts'
import { deriveKey } from '../../../lib/secrets.ts'
import { createGrantsService, type GrantsService } from './grants.service.ts'
import { createHandoffService, type HandoffService } from './handoff.service.ts'
import { createLoginCsrf, type LoginCsrf } from './login-csrf.ts'

declare module 'fastify' {
  interface FastifyInstance {
    oauth: {
      handoff: HandoffService
      grants: GrantsService
      loginCsrf: LoginCsrf
    }
  }
}

/**
 * The portal's side of agent access: handoff codes for the auth server, the
 * agents (grants) connected to an account, and the login page's CSRF tokens.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  fastify.decorate('oauth', {
    handoff: createHandoffService({
      sql: fastify.sql,
      baseUrl: config.BASE_URL,
      ttlSeconds: config.HANDOFF_TTL_SECONDS,
      secret: resolveHandoffSecret(config.HANDOFF_SECRET, config.JWT_SECRET)
    }),
    grants: createGrantsService({ sql: fastify.sql, activity: fastify.activity }),
    loginCsrf: createLoginCsrf({ key: deriveKey(config.JWT_SECRET, 'login-csrf'), secure: config.BASE_URL.startsWith('https:') })
  })
}, { name: 'oauth', dependencies: ['orm', 'env', 'activity'] })
