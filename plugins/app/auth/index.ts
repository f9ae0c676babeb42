import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UserActor } from '../../../lib/actor.ts'
import { userScope, type CallScope } from '../../../lib/call-scope.ts'
import { authModeOf } from '../../../lib/route-auth.ts'
import { bearerTokenIn } from '../../../lib/bearer.ts'
import type { CallerSql, TenantStatement } from '../../../lib/tenant-sql.ts'
import { createAuthService, type AuthService, type SessionClaims } from './auth.service.ts'
import { createSessionsService, type SessionsService } from './sessions.service.ts'
import { TokenMissing } from './auth.errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthService & {
      /**
       * For `portal-inline` routes: reads of the caller's tenant, each checking
       * the request's token in the same statement (`queryAsSession`), and
       * setting `request.actor` once it is checked.
       */
      sessionSql: (request: FastifyRequest) => CallerSql
    }
    /** A person's open sessions (devices), and ending them. */
    sessions: SessionsService
  }
  interface FastifyRequest {
    /** Set for every route with `auth: 'portal'` (the default under /api/), and by `auth.sessionSql`. */
    actor: UserActor
    /**
     * What services are called with (lib/call-scope.ts), built on first use:
     * the request's actor and em, and reads through `auth.sessionSql` on
     * `portal-inline` routes (no actor until that read ran), else as the actor.
     */
    scope: CallScope<UserActor>
  }
}

const kClaims = Symbol('session claims')
const kScope = Symbol('call scope')
interface ClaimsHolder { [kClaims]?: SessionClaims, [kScope]?: CallScope<UserActor> }

/**
 * Portal authentication. Every route under /api/ requires a bearer token
 * unless it declares `config: { auth: 'none' }`, so a new route is protected by
 * default. The authenticated request gets an EntityManager scoped to its tenant.
 *
 * `portal-inline` routes have their token's signature checked here, before
 * validation, as every portal route, and its session checked by the statement
 * that reads their data (`auth.sessionSql`).
 */
export default fp(async (fastify) => {
  const auth = createAuthService({
    sql: fastify.sql,
    tenants: fastify.tenants,
    twoFactor: fastify.twoFactor,
    tokenTtlSeconds: fastify.config.TOKEN_TTL_SECONDS,
    challenge: { ttlSeconds: fastify.config.TWO_FACTOR_CHALLENGE_TTL_SECONDS, maxAttempts: fastify.config.TWO_FACTOR_MAX_ATTEMPTS },
    tokens: {
      sign: (payload, options) => fastify.jwt.sign(payload, { sub: options.sub }),
      verify: (token) => fastify.jwt.verify(token)
    }
  })

  function sessionSql (request: FastifyRequest): CallerSql {
    return async <Row>(statement: TenantStatement, values?: unknown[]) => {
      const claims = (request as unknown as ClaimsHolder)[kClaims]
      if (claims === undefined) throw new Error(`${request.routeOptions.url ?? request.url}: auth.sessionSql is for portal-inline routes`)
      const result = await auth.queryAsSession<Row>(claims, statement, values)
      request.actor = result.actor
      request.scopeToTenant(result.actor.tenantId)
      return result
    }
  }

  function scopeOf (request: FastifyRequest): CallScope<UserActor> {
    if ((request as unknown as ClaimsHolder)[kClaims] === undefined) return userScope(fastify.sql, request.actor, () => request.em)
    return { get actor () { return request.actor }, get em () { return request.em }, read: sessionSql(request) }
  }

  fastify.decorate('auth', { ...auth, sessionSql })
  fastify.decorate('sessions', createSessionsService({ activity: fastify.activity }))
  fastify.decorateRequest('actor', null as unknown as UserActor)
  fastify.decorateRequest(kClaims, undefined)
  fastify.decorateRequest(kScope, undefined)
  fastify.decorateRequest('scope', {
    getter () {
      const holder = this as unknown as ClaimsHolder
      holder[kScope] ??= scopeOf(this)
      return holder[kScope]
    }
  })

  // A portal-inline handler that answered without reading through `sessionSql` never checked the session: a bug, not an answer.
  fastify.addHook('onRoute', (route) => {
    if (authModeOf(route.url, route.config) !== 'portal-inline') return
    const checked = async (request: FastifyRequest, reply: FastifyReply) => {
      if (reply.statusCode < 400 && request.actor === null) throw new Error(`${route.url} answered without checking the session (auth.sessionSql)`)
    }
    route.onSend = [...[route.onSend ?? []].flat(), checked]
  })

  fastify.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url
    if (url === undefined) return
    const mode = authModeOf(url, request.routeOptions.config)
    if (mode === 'portal') {
      const actor = await auth.authenticate(bearerToken(request))
      request.actor = actor
      request.scopeToTenant(actor.tenantId)
    } else if (mode === 'portal-inline') {
      (request as unknown as ClaimsHolder)[kClaims] = auth.claimsOf(bearerToken(request))
    }
  })
}, { name: 'auth', dependencies: ['orm', 'jwt', 'tenants', 'activity', 'two-factor'] })

function bearerToken (request: FastifyRequest): string {
  const token = bearerTokenIn(request.headers.authorization)
  if (token === undefined) throw TokenMissing()
  return token
}
