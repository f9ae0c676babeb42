import type { FastifyReply, FastifyRequest } from 'fastify'
import { bearerTokenIn } from '../lib/bearer.ts'
import { defineError } from '../lib/errors.ts'
import type { Sql } from '../lib/sql.ts'
import type { TenantRead } from '../lib/tenant-sql.ts'
import { TokenInvalid, TokenMissing } from '../plugins/app/auth/auth.errors.ts'
import { AccessTokenRejected, type AccessTokenClaims, type AccessTokenVerifier } from './access-token.ts'
import { findAgentActor, findAgentActorWithRead } from './agent-actor.ts'
import type { createOriginPolicy } from './origin-policy.ts'
import type { PrefetchedRead } from './prefetched-read.ts'

const OriginRefused = defineError('ORIGIN_NOT_ALLOWED', 'Requests from this origin are not allowed', 403)

export interface McpAuthenticationOptions {
  baseUrl: string
  sql: Sql
  verify: AccessTokenVerifier
  originPolicy: ReturnType<typeof createOriginPolicy>
  /** The read a request's call makes first, to run in the statement that checks the agent (undefined: none). */
  firstReadOf: (body: unknown) => TenantRead | undefined
}

const kClaims = Symbol('MCP access token claims')
const kPrefetched = Symbol('MCP prefetched read')
interface AgentRequest { [kClaims]?: AccessTokenClaims, [kPrefetched]?: PrefetchedRead }

/** The read run with the agent check, for the call's scope (mcp/prefetched-read.ts). */
export const prefetchedReadOf = (request: FastifyRequest): PrefetchedRead | undefined => (request as unknown as AgentRequest)[kPrefetched]

/**
 * The authentication of /api/mcp, in two hooks. `checkToken` (onRequest, before
 * the body is read): origin check, then the OAuth access token's signature and
 * claims (mcp/access-token.ts). `identifyAgent` (preValidation, once the body is
 * parsed): the person and grant behind the token (mcp/agent-actor.ts), in one
 * statement with the call's first read when the call has one (`firstReadOf`). A 401
 * carries the RFC 9728 challenge, which is how an MCP client discovers where to
 * get a token.
 */
export function createMcpAuthentication ({ baseUrl, sql, verify, originPolicy, firstReadOf }: McpAuthenticationOptions) {
  const resourceMetadata = `${baseUrl}/.well-known/oauth-protected-resource/api/mcp`
  const challenge = (error?: string) =>
    `Bearer ${error === undefined ? '' : `error="${error}", `}resource_metadata="${resourceMetadata}", scope="mcp"`

  const refuse = (request: FastifyRequest, reply: FastifyReply, reason: string) => {
    request.log.info({ reason }, 'MCP access token refused')
    reply.header('www-authenticate', challenge('invalid_token'))
    return TokenInvalid('The access token is invalid, expired or revoked: get a new one from the authorization server')
  }

  async function checkToken (request: FastifyRequest, reply: FastifyReply): Promise<void> {
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
      ;(request as unknown as AgentRequest)[kClaims] = await verify(token)
    } catch (error) {
      if (!(error instanceof AccessTokenRejected)) throw error
      throw refuse(request, reply, error.message)
    }
  }

  async function identifyAgent (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const holder = request as unknown as AgentRequest
    const claims = holder[kClaims]
    if (claims === undefined) throw new Error('identifyAgent runs after checkToken')
    const read = request.method === 'POST' ? firstReadOf(request.body) : undefined
    const found = read === undefined
      ? await findAgentActor(sql, claims).then((actor) => actor === undefined ? undefined : { actor, rows: undefined })
      : await findAgentActorWithRead(sql, claims, read)
    if (found === undefined) throw refuse(request, reply, 'the person, grant or token is no longer valid')
    request.actor = found.actor
    request.scopeToTenant(found.actor.tenantId)
    if (read !== undefined && found.rows !== undefined) holder[kPrefetched] = { ...read, rows: found.rows }
  }

  return { checkToken, identifyAgent }
}
