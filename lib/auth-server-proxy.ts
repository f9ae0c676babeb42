import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AuthServerUnavailable } from './auth-server-upstream.ts'
import { sendError, toErrorBody } from '../plugins/app/http/envelope.ts'
import { forward, responseHeaders, UpstreamUnavailableError } from './proxy.ts'
import { OAuthDocument, OAuthError, Redirect } from '../schemas/authorization-server.ts'

export interface ProxiedRoute {
  /** Relative to the route file's folder, like any route. */
  url: string
  summary: string
  /** One OpenAPI operationId per method. An `OPTIONS` entry answers browser preflights (the authorization server answers CORS itself). */
  operations: Partial<Record<'GET' | 'POST' | 'OPTIONS', string>>
  /** Answers a redirect or an HTML page rather than JSON. */
  browser?: boolean
  /** Requests per minute per client IP (token and registration endpoints); preflights are not counted. */
  perMinute?: number
}

/**
 * Declares authorization server endpoints under the portal's one public
 * origin, forwarded as they are to this deployment's auth server
 * (fastify.authServer: loopback, verified to be ours), which builds its URLs
 * from X-Forwarded-Host/-Proto. Called by the
 * route file of each folder that holds such endpoints (routes/oauth,
 * routes/.well-known, routes/api/oauth), inside its own encapsulated context:
 * bodies go upstream byte for byte, so that context parses none.
 */
/**
 * What the portal itself refuses on these routes before forwarding (a NUL in the query, a lone
 * surrogate: plugins/app/http): a 400 in the OAuth error format the routes document, as the
 * authorization server answers; rate limits and an unreachable upstream keep the envelope.
 */
function oauthErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body } = toErrorBody(error)
  if (status >= 500) request.log.error({ err: error }, 'auth server proxy failed')
  if (status !== 400) return sendError(reply, status, body)
  return reply.code(400).send({ error: 'invalid_request', error_description: body.message })
}

export function proxyToAuthServer (fastify: FastifyInstance, routes: ProxiedRoute[]): void {
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })

  const { authServer } = fastify
  const publicOrigin = fastify.config.BASE_URL

  async function proxy (request: FastifyRequest, reply: FastifyReply) {
    const upstream = { origin: await authServer.origin(), publicOrigin, timeoutMs: 10_000 }
    let response
    try {
      response = await forward(upstream, {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        ip: request.ip
      })
    } catch (error) {
      if (error instanceof UpstreamUnavailableError) throw AuthServerUnavailable(`The authorization server does not answer: ${error.message}`)
      throw error
    }
    return reply.code(response.statusCode ?? 502).headers(responseHeaders(response)).send(response)
  }

  for (const route of routes) {
    const success = route.browser === true ? { 200: Redirect, 303: Redirect } : { 200: OAuthDocument, 201: OAuthDocument }
    const limited = route.perMinute === undefined ? undefined : fastify.limitPerIp(`oauth${fastify.prefix}${route.url}`, { max: route.perMinute, timeWindow: 60_000 })
    for (const [method, operationId] of Object.entries(route.operations)) {
      const counted = limited !== undefined && method !== 'OPTIONS'
      fastify.route({
        method,
        url: route.url,
        config: { auth: 'none' },
        onRequest: counted ? [limited] : [],
        errorHandler: oauthErrors,
        schema: {
          tags: ['oauth'],
          operationId,
          summary: method === 'OPTIONS' ? `CORS preflight: ${route.summary}` : route.summary,
          description: 'Served by the authorization server process (auth-server/); the portal forwards it.',
          response: { ...success, 400: OAuthError, 401: OAuthError, ...(counted ? { 429: { $ref: 'ErrorEnvelope' } } : {}), 502: { $ref: 'ErrorEnvelope' } }
        },
        handler: proxy
      })
    }
  }
}
