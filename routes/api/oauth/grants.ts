import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, SuccessOnly, responses } from '../../../schemas/common.ts'
import { GrantIdParams, GrantListResponse } from '../../../schemas/oauth.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { grants } = fastify.oauth

  fastify.get('/grants', {
    schema: {
      tags: ['agents'],
      operationId: 'listGrants',
      summary: 'Agents connected to my account',
      description: 'The OAuth grants the caller gave to agents (MCP clients), newest first, with when each was connected and last issued a token.',
      response: responses({ 200: GrantListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, grants: await grants.list(request.scope) }))

  fastify.delete('/grants/:id', {
    schema: {
      tags: ['agents'],
      operationId: 'revokeGrant',
      summary: 'Disconnect an agent',
      description: 'Deletes the grant and every token and code issued under it; the agent must be authorized again. ' +
        'Only the caller\'s own grants: any other id is 404 `GRANT_NOT_FOUND`. Recorded in the activity feed (`oauth.grant_revoked`).',
      params: GrantIdParams,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, 404])
    }
  }, async (request) => {
    await grants.revoke(request.scope, request.params.id)
    return { success: true as const }
  })
}

export default routes
