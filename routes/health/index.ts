import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { responses, Success } from '../../schemas/common.ts'
import { sendError } from '../../plugins/app/http/envelope.ts'

const HealthResponse = Success({ status: Type.String() })

/** Liveness (the process answers) and readiness (it can reach PostgreSQL and is not shutting down). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  let closing = false
  // A real round trip: MikroORM connects lazily, so isConnected() says little before the first query.
  const databaseAnswers = async () => {
    try {
      await fastify.orm.em.getConnection().execute('SELECT 1', [], 'get')
      return true
    } catch {
      return false
    }
  }
  fastify.addHook('preClose', async () => { closing = true })

  fastify.get('/live', {
    schema: { tags: ['health'], operationId: 'getLiveness', summary: 'Liveness probe', response: responses({ 200: HealthResponse }) }
  }, async () => ({ success: true as const, status: 'live' }))

  fastify.get('/ready', {
    schema: { tags: ['health'], operationId: 'getReadiness', summary: 'Readiness probe: checks the database', response: responses({ 200: HealthResponse }, [503]) }
  }, async (_request, reply) => {
    const database = closing ? false : await databaseAnswers()
    if (!database) {
      return sendError(reply, 503, { code: 'NOT_READY', message: closing ? 'Shutting down' : 'Database is not reachable' })
    }
    return { success: true as const, status: 'ready' }
  })
}

export default routes
