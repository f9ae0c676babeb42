import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageInfo } from '../../../lib/pages.ts'
import { AUTHENTICATED, SuccessOnly, pageOf, responses } from '../../../schemas/common.ts'
import { GrantAccessBody, GrantCallsQuery, GrantCallsResponse, GrantIdParams, GrantListQuery, GrantListResponse, GrantResponse } from '../../../schemas/oauth.ts'
import { InstanceNotFound } from '../../../plugins/app/instances/instances.errors.ts'
import { AgentLevelAboveRole, GrantNotFound } from '../../../plugins/app/oauth/oauth.errors.ts'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { grants } = fastify.oauth

  fastify.get('/grants', {
    schema: {
      tags: ['agents'],
      operationId: 'listGrants',
      summary: 'Agents connected to my account',
      description: 'The OAuth grants the caller gave to agents (MCP clients), newest first: when each was connected, last called a tool ' +
        'and last got a token, its level (`read`, `operate`, `administer`) and its instances (null: all). Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: GrantListQuery,
      response: responses({ 200: GrantListResponse }, AUTHENTICATED)
    }
  }, async (request) => ({ success: true as const, ...await grants.listPage(request.scope, pageOf(request.query)) }))

  fastify.put('/grants/:id', {
    schema: {
      tags: ['oauth'],
      operationId: 'setGrantAccess',
      summary: 'Change what an agent may do',
      description: 'Lowers or raises a connected agent\'s level and, with `instance_ids`, binds it to some instances (omitted or null: all). ' +
        'Applies from the agent\'s next call. Up to what the caller\'s role allows (403 `AGENT_LEVEL_ABOVE_ROLE`); an instance id that is ' +
        'not the company\'s is 404 `INSTANCE_NOT_FOUND`; only the caller\'s own grants (404 `GRANT_NOT_FOUND`). Only with a portal session, never an agent token. ' +
        'Recorded in the activity feed (`oauth.grant_access_changed`).',
      params: GrantIdParams,
      body: GrantAccessBody,
      response: responses({ 200: GrantResponse }, [...AUTHENTICATED, 404, AgentLevelAboveRole, InstanceNotFound, GrantNotFound])
    }
  }, async (request) => ({ success: true as const, grant: await grants.setAccess(request.scope, request.params.id, request.body) }))

  fastify.get('/grants/:id/calls', {
    schema: {
      tags: ['oauth'],
      operationId: 'listGrantCalls',
      summary: 'What an agent did',
      description: 'The audit trail of one connected agent: every tool call (kept AGENT_CALL_RETENTION_DAYS), newest first, with a summary ' +
        'of its arguments (secrets removed), its outcome and how long it took. Only the caller\'s own grants: any other id is 404 `GRANT_NOT_FOUND`.' +
        ' Paged (docs/api.md, "Lists and pages"): `pagination`, and `total` at the top level as before.',
      params: GrantIdParams,
      querystring: GrantCallsQuery,
      response: responses({ 200: GrantCallsResponse }, [...AUTHENTICATED, 404, GrantNotFound])
    }
  }, async (request) => {
    const page = pageOf(request.query)
    const { calls, total } = await fastify.oauth.calls.list(request.scope, request.params.id, page)
    return { success: true as const, calls, total, pagination: pageInfo(page, total) }
  })

  fastify.delete('/grants/:id', {
    schema: {
      tags: ['agents'],
      operationId: 'revokeGrant',
      summary: 'Disconnect an agent',
      description: 'Deletes the grant and every token and code issued under it; the agent must be authorized again. ' +
        'Only the caller\'s own grants: any other id is 404 `GRANT_NOT_FOUND`. Recorded in the activity feed (`oauth.grant_revoked`).',
      params: GrantIdParams,
      response: responses({ 200: SuccessOnly }, [...AUTHENTICATED, 404, GrantNotFound])
    }
  }, async (request) => {
    await grants.revoke(request.scope, request.params.id)
    return { success: true as const }
  })
}

export default routes
