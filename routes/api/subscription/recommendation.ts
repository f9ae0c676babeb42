import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { RecommendationQuery, RecommendationResponse } from '../../../schemas/plans.ts'

/** Registered by ./index.ts (autoload loads only a folder's index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/recommendation', {
    schema: {
      tags: ['plans'],
      operationId: 'recommendPlan',
      summary: 'Which plan to buy, and what it costs',
      description: 'The cheapest active paid plan for `users` and `storage` (GB beyond the included storage), priced for `billing_cycle`, with the trial and demo availability and the saved configuration. Lenient query: see each parameter; only text that is not a number, or a quantity above its maximum, is a 400 VALIDATION_FAILED naming the field.',
      querystring: RecommendationQuery,
      response: responses({ 200: RecommendationResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await fastify.plans.recommend(request.scope, request.query) }))
}

export default routes
