import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { responses } from '../schemas/common.ts'
import { sendError } from '../plugins/app/http/envelope.ts'
import { carriesScrapeToken } from '../lib/metrics/scrape.ts'

/**
 * Prometheus scrape on the main port, behind METRICS_TOKEN. Without the token
 * setting (or with METRICS_PORT, which serves it on a listener of its own) the
 * route does not exist: 404.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { METRICS_TOKEN, METRICS_PORT } = fastify.config
  if (METRICS_TOKEN === undefined || METRICS_PORT !== undefined) return
  const { registry } = fastify.serviceMetrics

  fastify.get('/metrics', {
    config: { auth: 'metrics-token' }, // checked by the handler: the route only exists while METRICS_TOKEN is set
    schema: {
      tags: ['health'],
      operationId: 'getServiceMetrics',
      summary: 'Prometheus metrics of the service (text exposition format)',
      description: 'Requires `Authorization: Bearer <METRICS_TOKEN>`. Exists only when METRICS_TOKEN is set and METRICS_PORT is not.',
      response: responses({
        200: {
          description: 'The metrics in the Prometheus text exposition format 0.0.4',
          content: { 'text/plain': { schema: Type.String() } }
        }
      }, [401])
    }
  }, async (request, reply) => {
    if (!carriesScrapeToken(request.headers.authorization, METRICS_TOKEN)) {
      reply.header('www-authenticate', 'Bearer')
      return sendError(reply, 401, { code: 'UNAUTHORIZED', message: 'A bearer token (METRICS_TOKEN) is required' })
    }
    const text = await registry.metrics()
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(text)
  })
}

export default routes
