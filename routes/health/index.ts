import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { responses, Success } from '../../schemas/common.ts'
import { sendError } from '../../plugins/app/http/envelope.ts'

const HealthResponse = Success({ status: Type.String() })

/**
 * Liveness (the process answers) and readiness (it can reach PostgreSQL, its own
 * auth server child answers as this deployment's, and it is not shutting down).
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  // A real round trip: MikroORM connects lazily, so isConnected() says little before the first query.
  const databaseAnswers = async () => {
    try {
      await fastify.orm.em.getConnection().execute('SELECT 1', [], 'get')
      return true
    } catch {
      return false
    }
  }

  fastify.get('/live', {
    schema: { tags: ['health'], operationId: 'getLiveness', summary: 'Liveness probe', response: responses({ 200: HealthResponse }) }
  }, async () => ({ success: true as const, status: 'live' }))

  fastify.get('/ready', {
    schema: { tags: ['health'], operationId: 'getReadiness', summary: 'Readiness probe: checks the database and the auth server child', response: responses({ 200: HealthResponse }, [503]) }
  }, async (_request, reply) => {
    if (fastify.drain.draining) return sendError(reply, 503, { code: 'NOT_READY', message: 'Shutting down' })
    const [database, authServer] = await Promise.all([databaseAnswers(), fastify.authServer.readinessProblem()])
    if (!database) return sendError(reply, 503, { code: 'NOT_READY', message: 'Database is not reachable' })
    if (authServer !== undefined) {
      // The details (loopback addresses) go to the log, not to whoever probes.
      fastify.log.warn({ authServer }, 'not ready: auth server')
      return sendError(reply, 503, { code: 'NOT_READY', message: 'The auth server is not running, or is not this deployment\'s' })
    }
    return { success: true as const, status: 'ready' }
  })
}

export default routes
