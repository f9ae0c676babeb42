import fp from 'fastify-plugin'
import cors from '@fastify/cors'

/** CORS for the portal front end: the BASE_URL origin plus CORS_ORIGINS. Bearer tokens, so no cookies. */
export default fp(async (fastify) => {
  const allowed = new Set([new URL(fastify.config.BASE_URL).origin, ...fastify.config.corsOrigins])
  await fastify.register(cors, {
    origin: (origin, callback) => callback(null, origin === undefined || allowed.has(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // Mcp-Protocol-Version for browser-based MCP clients; WWW-Authenticate so they can read the OAuth challenge.
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'If-None-Match', 'Mcp-Protocol-Version'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'ETag', 'Allow', 'WWW-Authenticate'],
    credentials: false,
    // A plain OPTIONS (no Origin) is not a preflight: let it through instead of a bare 400.
    strictPreflight: false,
    maxAge: 600
  })
}, { name: 'cors', dependencies: ['env'] })
