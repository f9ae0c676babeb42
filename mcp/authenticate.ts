import type { FastifyReply, FastifyRequest } from 'fastify'
import { bearerTokenIn } from '../lib/bearer.ts'
import { defineError } from '../lib/errors.ts'
import type { Sql } from '../lib/sql.ts'
import { TokenInvalid, TokenMissing } from '../plugins/app/auth/auth.errors.ts'
import { AccessTokenRejected, type AccessTokenVerifier } from './access-token.ts'
import { findAgentActor } from './agent-actor.ts'
import type { createOriginPolicy } from './origin-policy.ts'

const OriginRefused = defineError('ORIGIN_NOT_ALLOWED', 'Requests from this origin are not allowed', 403)

export interface McpAuthenticationOptions {
  baseUrl: string
  sql: Sql
  verify: AccessTokenVerifier
  originPolicy: ReturnType<typeof createOriginPolicy>
}

/**
 * The onRequest hook of /api/mcp: origin check, then the OAuth access token
 * (mcp/access-token.ts), then the person and grant behind it
 * (mcp/agent-actor.ts). A 401 carries the RFC 9728 challenge, which is how an
 * MCP client discovers where to get a token.
 */
export function createMcpAuthentication ({ baseUrl, sql, verify, originPolicy }: McpAuthenticationOptions) {
  const resourceMetadata = `${baseUrl}/.well-known/oauth-protected-resource/api/mcp`
  const challenge = (error?: string) =>
    `Bearer ${error === undefined ? '' : `error="${error}", `}resource_metadata="${resourceMetadata}", scope="mcp"`

  return async function authenticateAgent (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const origin = originPolicy(request.headers.host, request.headers.origin)
    if (!origin.allowed) throw OriginRefused(origin.reason)

    const header = request.headers.authorization
    if (header === undefined || header.trim() === '') {
      reply.header('www-authenticate', challenge())
      throw TokenMissing('Send an OAuth access token for this resource: see the WWW-Authenticate header')
    }
    const token = bearerTokenIn(header)
    try {
      if (token === undefined) throw new AccessTokenRejected('not a bearer token')
      const actor = await findAgentActor(sql, await verify(token))
      if (actor === undefined) throw new AccessTokenRejected('the person, grant or token is no longer valid')
      request.actor = actor
      request.scopeToTenant(actor.tenantId)
    } catch (error) {
      if (!(error instanceof AccessTokenRejected)) throw error
      request.log.info({ reason: error.message }, 'MCP access token refused')
      reply.header('www-authenticate', challenge('invalid_token'))
      throw TokenInvalid('The access token is invalid, expired or revoked: get a new one from the authorization server')
    }
  }
}
