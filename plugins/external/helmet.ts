import type { IncomingMessage, ServerResponse } from 'node:http'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'

/**
 * The headers helmet sets for `options`, worked out once. Helmet's middleware
 * (and @fastify/helmet, which builds it anew on every request) would parse the
 * same directives for every answer; ours are static, so the result is too.
 */
export function securityHeaders (options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: unknown) => { headers[name.toLowerCase()] = String(value) },
    removeHeader: (name: string) => { delete headers[name.toLowerCase()] }
  }
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => { if (error) throw error })
  return headers
}

/** Security headers on every answer, including errors and the docs UI. */
export default fp(async (fastify) => {
  // Asking browsers to upgrade to https only makes sense when the portal is served over https.
  const servedOverHttps = fastify.config.BASE_URL.startsWith('https:')
  const headers = securityHeaders({
    // Swagger UI needs its own inline assets; it sets its CSP (see swagger.ts).
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: servedOverHttps ? [] : null
      }
    },
    crossOriginResourcePolicy: { policy: 'same-site' }
  })
  // On the raw response, as helmet itself does: cheaper per request than as many reply.header calls,
  // and a route's own reply.header (e.g. a page's stricter CSP) still wins when the head is written.
  const entries = Object.entries(headers)
  fastify.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of entries) reply.raw.setHeader(name, value)
    done()
  })
}, { name: 'helmet', dependencies: ['env'] })
