import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { bearerTokenIn } from '../../../lib/bearer.ts'
import { AUTHENTICATED, responses } from '../../../schemas/common.ts'
import { TokenMissing } from '../../../plugins/app/auth/auth.errors.ts'
import { ModulesQuery, ModulesResponse } from '../../../schemas/modules.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    config: { auth: 'none' },
    schema: {
      tags: ['modules'],
      operationId: 'listModules',
      summary: 'The module catalog',
      description: 'Every installable ERP app. Public: no token needed. Filter by `category` (exact, case-insensitive) and search with `q`. ' +
        'With `include=company` and a bearer token, the caller\'s company\'s synced addon modules are listed too (never another company\'s).',
      querystring: ModulesQuery,
      response: responses({ 200: ModulesResponse }, AUTHENTICATED)
    }
  }, async (request, reply) => {
    if (request.query.include !== 'company') return { success: true as const, modules: await fastify.modules.list(request.em, request.query) }
    const token = bearerTokenIn(request.headers.authorization)
    if (token === undefined) throw TokenMissing('`include=company` lists your company\'s modules: send your bearer token')
    const actor = await fastify.auth.authenticate(token)
    reply.header('cache-control', 'private, no-store')
    return { success: true as const, modules: await fastify.modules.list(request.em, request.query, actor.tenantId) }
  })
}

export default routes
