import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, IdParams, responses } from '../../../schemas/common.ts'
import { SessionsRevokedResponse } from '../../../schemas/sessions.ts'
import { UserNotFound } from '../../../plugins/app/users/users.errors.ts'

/** An administrator ends a member's sessions (a lost laptop, someone leaving). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/:id/sessions/revoke', {
    schema: {
      tags: ['users'],
      operationId: 'revokeUserSessions',
      summary: 'End every session of a member (admin)',
      description: 'All of the member\'s portal tokens answer 401 from the next request on; their account stays active. ' +
        'A user of another company: 404 USER_NOT_FOUND; not an administrator: 403 FORBIDDEN.',
      params: IdParams,
      response: responses({ 200: SessionsRevokedResponse }, [...AUTHENTICATED, Forbidden, 404, UserNotFound])
    }
  }, async (request) => ({ success: true as const, revoked: await fastify.sessions.revokeAllOf(request.scope, request.params.id) }))
}

export default routes
