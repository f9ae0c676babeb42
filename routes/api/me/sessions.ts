import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, IdParams, SuccessOnly, pageOf, responses } from '../../../schemas/common.ts'
import { SessionListQuery, SessionListResponse, SessionsRevokedResponse } from '../../../schemas/sessions.ts'
import { SessionNotFound } from '../../../plugins/app/auth/auth.errors.ts'

/** The caller's open sessions (one per login: devices and browsers). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { sessions } = fastify

  fastify.get('/sessions', {
    schema: {
      tags: ['auth'],
      operationId: 'listMySessions',
      summary: 'Your open sessions',
      description: 'Every session not logged out or expired, with where it was opened and when it was last used (to the minute); `current` marks this request\'s. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: SessionListQuery,
      response: responses({ 200: SessionListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await sessions.list(request.scope, pageOf(request.query)) }))

  fastify.delete('/sessions/:id', {
    schema: {
      tags: ['auth'],
      operationId: 'revokeMySession',
      summary: 'End one of your sessions',
      description: 'Its token answers 401 from the next request on. Another person\'s session, or one already ended: 404 SESSION_NOT_FOUND.',
      params: IdParams,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, SessionNotFound])
    }
  }, async (request) => {
    await sessions.revoke(request.scope, request.params.id)
    return { success: true as const }
  })

  fastify.post('/sessions/revoke-others', {
    schema: {
      tags: ['auth'],
      operationId: 'revokeMyOtherSessions',
      summary: 'End all your other sessions',
      description: 'Every session but this request\'s ends at once.',
      response: responses({ 200: SessionsRevokedResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, revoked: await sessions.revokeOthers(request.scope) }))
}

export default routes
