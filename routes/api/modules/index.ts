import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { responses } from '../../../schemas/common.ts'
import { ModulesQuery, ModulesResponse } from '../../../schemas/modules.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'none' },
    schema: {
      tags: ['modules'],
      operationId: 'listModules',
      summary: 'The module catalog',
      description: 'Every installable ERP app. Public: no token needed. Filter by `category` (exact, case-insensitive) and search with `q`.',
      querystring: ModulesQuery,
      response: responses({ 200: ModulesResponse })
    }
  }, async (request) => ({ success: true as const, modules: await fastify.modules.list(request.em, request.query) }))
}

export default routes
