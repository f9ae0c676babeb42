import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import type { UserActor } from '../../../lib/actor.ts'
import { authModeOf } from '../../../lib/route-auth.ts'
import { bearerTokenIn } from '../../../lib/bearer.ts'
import { createAuthService, type AuthService } from './auth.service.ts'
import { TokenMissing } from './auth.errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthService & {
      /** The bearer token of a request (401 TOKEN_MISSING without one), for `portal-inline` routes. */
      tokenOf: (request: FastifyRequest) => string
    }
  }
  interface FastifyRequest {
    /** Set for every route with `auth: 'portal'` (the default under /api/). */
    actor: UserActor
  }
}

/**
 * Portal authentication. Every route under /api/ requires a bearer token
 * unless it declares `config: { auth: 'none' }`, so a new route is protected by
 * default. The authenticated request gets an EntityManager scoped to its tenant.
 */
export default fp(async (fastify) => {
  const auth = createAuthService({
    sql: fastify.sql,
    tenants: fastify.tenants,
    tokenTtlSeconds: fastify.config.TOKEN_TTL_SECONDS,
    tokens: {
      sign: (payload, options) => fastify.jwt.sign(payload, { sub: options.sub }),
      verify: (token) => fastify.jwt.verify(token)
    }
  })
  fastify.decorate('auth', { ...auth, tokenOf: bearerToken })
  fastify.decorateRequest('actor', null as unknown as UserActor)

  fastify.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url
    if (url === undefined) return
    const mode = authModeOf(url, request.routeOptions.config)
    // An inline route checks its token in its own statement, but a missing one is a 401 before validation, as everywhere.
    if (mode === 'portal-inline') bearerToken(request)
    if (mode !== 'portal') return
    const actor = await auth.authenticate(bearerToken(request))
    request.actor = actor
    request.scopeToTenant(actor.tenantId)
  })
}, { name: 'auth', dependencies: ['orm', 'jwt', 'tenants'] })

function bearerToken (request: FastifyRequest): string {
  const token = bearerTokenIn(request.headers.authorization)
  if (token === undefined) throw TokenMissing()
  return token
}
