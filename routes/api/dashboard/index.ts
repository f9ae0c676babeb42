import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { DashboardResponse } from '../../../schemas/dashboard.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'portal-inline' },
    schema: {
      tags: ['dashboard'],
      operationId: 'getDashboard',
      summary: 'Everything the home screen shows, in one call',
      description: 'Company, user, subscription and configuration, instances, statistics and the latest 10 activities. One SQL statement (the token check included), however much data the company has.',
      response: responses({ 200: DashboardResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, dashboard: await fastify.dashboard.get(request.scope) }))
}

export default routes
