import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { defineError } from '../../../lib/errors.ts'
import { assertStorableText, findNonFiniteNumber, sendError, toErrorBody } from './envelope.ts'
import { createMethodRouter } from './method-router.ts'
import { DATABASE_RETRY_AFTER_SECONDS } from '../../../lib/database-unavailable.ts'

const NotFiniteNumber = defineError('NUMBER_NOT_FINITE', 'A number in the request is not finite', 400)

/**
 * The one response shape for errors, the 404/405 distinction for unmatched
 * requests. (The X-Request-Id header is set in app.ts, by the first hook of all.)
 */
export default fp(async (fastify) => {
  const methodRouter = createMethodRouter()
  fastify.addHook('onRoute', (route) => { methodRouter.add(route.method, route.url) })

  fastify.addHook('preValidation', async (request) => {
    // The MCP endpoint answers bad input itself, as JSON-RPC errors or tool errors (mcp/tool-registry.ts).
    if (request.routeOptions.config.auth === 'mcp') return
    for (const [part, value] of [['body', request.body], ['query', request.query], ['params', request.params]] as const) {
      assertStorableText(value, part)
    }
  })

  // After validation (and its coercion): a number that is not finite cannot be a count, an id or a cursor.
  fastify.addHook('preHandler', async (request) => {
    for (const [part, value] of [['query', request.query], ['params', request.params]] as const) {
      const field = findNonFiniteNumber(value)
      if (field !== undefined) throw NotFiniteNumber(`The ${part} field ${field} must be a finite number`, { fields: [{ field, in: part, message: 'must be a finite number' }] })
    }
  })

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = toErrorBody(error)
    if (body.code === 'DATABASE_UNAVAILABLE') {
      request.log.warn({ err: error }, 'database unavailable')
      return sendError(reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)), status, body)
    }
    // The stack of a 5xx on a line of its own; a 4xx is told by the request's access line (lib/access-log.ts).
    if (status >= 500) request.log.error({ err: error }, 'request failed')
    return sendError(reply, status, body)
  })

  // OPTIONS (answered by the CORS plugin on every path) says what the path allows.
  fastify.addHook('onSend', async (request, reply) => {
    if (request.method !== 'OPTIONS' || reply.hasHeader('allow')) return
    const allowed = methodRouter.allowedMethods(request.url)
    if (allowed.length > 0) reply.header('allow', allowed.join(', '))
  })

  fastify.setNotFoundHandler((request, reply) => {
    const allowed = methodRouter.allowedMethods(request.url)
    // The CORS plugin answers the preflights of allowed origins; one that reaches here came from an origin
    // that may not call the API from a browser: refused plainly, with no CORS headers.
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined && allowed.length > 0) {
      return sendError(reply, 403, { code: 'CORS_ORIGIN_REFUSED', message: `The origin ${String(request.headers.origin ?? '(none)')} may not call this API from a browser` })
    }
    if (allowed.length > 0) {
      return sendError(reply.header('allow', allowed.join(', ')), 405,
        { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed here; use ${allowed.join(', ')}`, details: { allowed } })
    }
    return sendError(reply, 404, { code: 'ROUTE_NOT_FOUND', message: `No route for ${request.method} ${request.url.split('?')[0]}` })
  })
}, { name: 'http' })
