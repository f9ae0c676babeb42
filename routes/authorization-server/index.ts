import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { defineError } from '../../lib/errors.ts'
import { forward, responseHeaders, UpstreamUnavailableError } from '../../lib/proxy.ts'
import { OAuthDocument, OAuthError, Redirect } from '../../schemas/authorization-server.ts'

const AuthServerUnavailable = defineError('AUTH_SERVER_UNAVAILABLE', 'The authorization server does not answer', 502)

interface ProxiedRoute {
  methods: HTTPMethods[]
  url: string
  summary: string
  /** Browser-based clients call it from other origins: the authorization server answers CORS itself. */
  cors?: boolean
  /** Answers a redirect or an HTML page rather than JSON. */
  browser?: boolean
  /** Requests per minute per client IP (token and registration endpoints). */
  perMinute?: number
}

/**
 * The authorization server's endpoints under the portal's one public origin,
 * forwarded as they are to the auth-server process (AUTH_PORT, loopback), which
 * builds its URLs from X-Forwarded-Host/-Proto. See auth-server/README.md.
 */
const ROUTES: ProxiedRoute[] = [
  { methods: ['GET'], url: '/.well-known/oauth-authorization-server', summary: 'Authorization server metadata (RFC 8414)', cors: true },
  { methods: ['GET'], url: '/.well-known/openid-configuration', summary: 'Discovery document (the same metadata)', cors: true },
  { methods: ['GET'], url: '/.well-known/jwks.json', summary: 'Public keys that sign access tokens (RFC 7517)', cors: true },
  { methods: ['POST'], url: '/api/oauth/register', summary: 'Register a public client (RFC 7591); no secret is issued', cors: true, perMinute: 20 },
  { methods: ['GET', 'POST'], url: '/oauth/authorize', summary: 'Authorization endpoint (code + PKCE S256)', browser: true },
  { methods: ['GET'], url: '/oauth/authorize/:uid', summary: 'Resumes an authorization after sign-in or consent', browser: true },
  { methods: ['POST'], url: '/oauth/token', summary: 'Token endpoint (form-encoded): authorization_code and refresh_token grants', cors: true, perMinute: 120 },
  { methods: ['POST'], url: '/oauth/revoke', summary: 'Revoke an access or refresh token (RFC 7009)', cors: true },
  { methods: ['GET'], url: '/oauth/handoff', summary: 'Finishes the portal sign-in handoff (oauth_transaction, handoff_code)', browser: true },
  { methods: ['GET', 'POST'], url: '/oauth/consent', summary: 'The consent page (Allow / Deny)', browser: true }
]

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  // Bodies go upstream byte for byte (forms, JSON): no parsing here.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })

  const upstream = {
    origin: `http://127.0.0.1:${fastify.config.AUTH_PORT}`,
    publicOrigin: fastify.config.BASE_URL,
    timeoutMs: 10_000
  }

  async function proxy (request: FastifyRequest, reply: FastifyReply) {
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

  for (const route of ROUTES) {
    const success = route.browser === true ? { 200: Redirect, 303: Redirect } : { 200: OAuthDocument, 201: OAuthDocument }
    const methods: HTTPMethods[] = route.cors === true ? [...route.methods, 'OPTIONS'] : route.methods
    const limited = route.perMinute === undefined ? undefined : fastify.limitPerIp(`oauth${route.url}`, { max: route.perMinute, timeWindow: 60_000 })
    fastify.route({
      method: methods,
      url: route.url,
      config: { auth: 'none' },
      // Preflights are free: only the calls themselves count.
      onRequest: limited === undefined ? [] : [async (request, reply) => { if (request.method !== 'OPTIONS') await limited.call(fastify, request, reply) }],
      schema: {
        tags: ['oauth'],
        summary: route.summary,
        description: 'Served by the authorization server process (auth-server/); the portal forwards it.',
        response: { ...success, 400: OAuthError, 401: OAuthError, ...(limited === undefined ? {} : { 429: { $ref: 'ErrorEnvelope' } }), 502: { $ref: 'ErrorEnvelope' } }
      },
      handler: proxy
    })
  }
}

export default routes
