import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, SuccessOnly, responses } from '../../schemas/common.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/logout', {
    schema: {
      tags: ['auth'],
      operationId: 'logOut',
      summary: 'Log out',
      description: 'Revokes the session behind the token; the token answers 401 from then on.',
      response: responses({ 200: SuccessOnly }, AUTHENTICATED)
    }
  }, async (request) => {
    await fastify.auth.logout(request.scope)
    return { success: true as const }
  })
}

export default routes
