import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import { isLoopbackOrigin } from '../../lib/loopback.ts'

/** RFC 9728 metadata: public and credential-free, so any origin may read it (browser-based MCP clients do). */
const PUBLIC_DOCUMENTS = new Set(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp'])

/**
 * CORS for the portal front end: the BASE_URL origin plus CORS_ORIGINS. Bearer tokens, so no cookies.
 * /api/mcp also answers pages on loopback origins (browser-based MCP tools such as the Inspector),
 * as its own origin policy does (mcp/origin-policy.ts). The public metadata documents answer any
 * origin; the authorization server's own documents (discovery, JWKS) get their CORS headers from
 * the authorization server, to which the portal forwards them.
 */
export default fp(async (fastify) => {
  const allowed = new Set([new URL(fastify.config.BASE_URL).origin, ...fastify.config.corsOrigins])
  const options = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // Mcp-Protocol-Version for browser-based MCP clients; WWW-Authenticate so they can read the OAuth challenge.
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'If-None-Match', 'Mcp-Protocol-Version'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'ETag', 'Allow', 'WWW-Authenticate'],
    credentials: false,
    // A plain OPTIONS (no Origin) is not a preflight: let it through instead of a bare 400.
    strictPreflight: false,
    maxAge: 600
  }
  const answer = {
    allowed: { ...options, origin: true },
    refused: { ...options, origin: false },
    anyone: { ...options, origin: '*', methods: ['GET', 'HEAD'] }
  }
  await fastify.register(cors, {
    delegator: (request, callback) => {
      const origin = request.headers.origin
      if (PUBLIC_DOCUMENTS.has(request.url.split('?', 1)[0] ?? '')) { callback(null, answer.anyone); return }
      const mcp = request.url === '/api/mcp' || request.url.startsWith('/api/mcp?')
      const allow = origin === undefined || allowed.has(origin) || (mcp && isLoopbackOrigin(origin))
      callback(null, allow ? answer.allowed : answer.refused)
    }
  })
}, { name: 'cors', dependencies: ['env'] })
