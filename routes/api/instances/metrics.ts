import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, InstanceIdParams, responses } from '../../../schemas/common.ts'
import { historyResponseJson } from '../../../plugins/app/metrics/metrics.view.ts'
import { InstanceMetricsResponse, MetricsHistoryQuery, MetricsHistoryResponse } from '../../../schemas/metrics.ts'
import { InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'

/** Registered by ./index.ts (autoload loads only a folder's index.ts). Units: docs/instances.md#metrics. */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:id/metrics', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['instances'],
      operationId: 'getInstanceMetrics',
      summary: 'An instance\'s usage now',
      description: 'CPU (cores, % of the limit), memory (MB), storage (database and data volume, MB), next to the plan\'s limits. ' +
        'A sample younger than the sampling interval is served without asking the backend (`source: sample`); otherwise the ' +
        'backend is asked (`source: live`). When it does not answer within 2 s the last sample is served with `stale: true`, ' +
        'or 503 METRICS_UNAVAILABLE when there is none. A stopped instance uses no CPU or memory; its storage is still shown.',
      params: InstanceIdParams,
      response: responses({ 200: InstanceMetricsResponse }, [...AUTHENTICATED, 404, 503, InstanceNotFound])
    }
  }, async (request) => ({ success: true as const, metrics: await fastify.metrics.current(request.scope, request.params.id) }))

  fastify.get('/:id/metrics/history', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['instances'],
      operationId: 'getInstanceMetricsHistory',
      summary: 'An instance\'s usage over time',
      description: 'Readings of [from, to) averaged and maxed per `step` bucket (default: the last 24 hours at 5-minute steps). ' +
        'At most 1,000 buckets: 400 METRICS_TOO_MANY_POINTS names the narrowest allowed step. Raw samples are kept ' +
        'METRICS_RAW_RETENTION_DAYS (7); older ranges come from hourly roll-ups (kept 90 days), so their buckets are at least an hour.',
      params: InstanceIdParams,
      querystring: MetricsHistoryQuery,
      response: responses({ 200: MetricsHistoryResponse }, [...AUTHENTICATED, 404, InstanceNotFound])
    }
  }, async (request, reply) => {
    // Up to 10,000 numbers, rendered by the statement: written as they come, not parsed and re-serialised.
    const answer = await fastify.metrics.history(request.scope, request.params.id, request.query)
    return await reply.type('application/json; charset=utf-8').send(historyResponseJson(answer))
  })
}

export default routes
