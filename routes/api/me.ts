import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MeResponse } from '../../schemas/auth.ts'
import { AUTHENTICATED, responses } from '../../schemas/common.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/me', {
    schema: {
      tags: ['auth'],
      operationId: 'getCurrentUser',
      summary: 'The signed-in user',
      description: 'Re-validates a stored token: 401 once it has expired, been logged out, or its user was deactivated.',
      response: responses({ 200: MeResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, user: fastify.auth.me(request.scope) }))
}

export default routes
