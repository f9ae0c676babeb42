import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ActivityListResponse, ActivityQuery } from '../../../schemas/activity.ts'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['activity'],
      operationId: 'listActivity',
      summary: 'Activity feed',
      description: 'Every change in the company, from people, agents and background jobs; newest first, cursor-paginated.',
      querystring: ActivityQuery,
      response: responses({ 200: ActivityListResponse }, AUTHENTICATED)
    }
  }, async (request) => {
    const { limit, before, type, instance_id: instanceId } = request.query
    return {
      success: true as const,
      ...await fastify.activity.list(request.scope, {
        limit,
        ...(before === undefined ? {} : { before }),
        ...(type === undefined ? {} : { type }),
        ...(instanceId === undefined ? {} : { instanceId })
      })
    }
  })
}

export default routes
