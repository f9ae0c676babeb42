import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify'
import { userScope } from '../lib/call-scope.ts'
import { sendError, toErrorBody } from '../plugins/app/http/envelope.ts'
import { createAccessTokenVerifier } from './access-token.ts'
import { createMcpAuthentication, prefetchedReadOf } from './authenticate.ts'
import { servingPrefetched } from './prefetched-read.ts'
import { handleMcpPost } from './http-bridge.ts'
import { createMcpServer } from './mcp-server.ts'
import { createModernLeg, isLegacyPost } from './modern/handler.ts'
import { createOriginPolicy } from './origin-policy.ts'
import { invalidParamsMessage, refuseBatch, sendInvalidParams } from './request-check.ts'
import { createToolRegistry } from './tool-registry.ts'
import { ALL_TOOLS } from './tools/index.ts'

/** Where the endpoint is served (routes/api/mcp/): the audience its access tokens name. */
const MCP_PATH = '/api/mcp'

export interface McpEndpoint {
  /** onRequest hook: the request's origin and the access token's signature, before anything else. */
  checkToken: onRequestAsyncHookHandler
  /** preValidation hook: the person and grant behind the token, with the call's first read when it has one. */
  identifyAgent: preValidationAsyncHookHandler
  /** Bad JSON or a body that is not JSON-RPC: a JSON-RPC error, as MCP clients expect, not the REST envelope. */
  errorHandler: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply
  /** preValidation: a JSON-RPC batch is refused before anything else reads the body. */
  refuseBatch: typeof refuseBatch
  /** Handles one JSON-RPC POST with a stateless MCP server. */
  handlePost: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>
}

function jsonRpcErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body } = toErrorBody(error)
  if (status === 415) {
    return reply.code(415).send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' } })
  }
  if (status !== 400) {
    if (status >= 500) request.log.error({ err: error }, 'MCP request failed')
    return sendError(reply, status, body)
  }
  const code = body.code === 'INVALID_JSON' ? -32700 : -32600
  const message = code === -32700 ? 'Parse error: the body is not valid JSON' : `Invalid Request: ${body.message}`
  return reply.code(400).send({ jsonrpc: '2.0', id: null, error: { code, message } })
}

/**
 * The MCP endpoint's machinery (Streamable HTTP, stateless; protocol 2026-07-28
 * through the v2 SDK (mcp/modern/), 2025-11-25 and 2025-06-18 through the v1 SDK, one
 * registry of tools for both); routes/api/mcp/index.ts declares its routes. Agents
 * authenticate with access tokens from our authorization server; each tool
 * calls the same service as the REST route, as the agent acting for its
 * person (activity records name the client).
 */
export function createMcpEndpoint (fastify: FastifyInstance): McpEndpoint {
  const { config } = fastify
  const resource = `${config.BASE_URL}${MCP_PATH}`
  const verify = createAccessTokenVerifier({
    issuer: config.BASE_URL,
    audience: resource,
    // The auth server's own address (as the portal's proxy uses), not BASE_URL: no round trip through the ingress.
    keys: { locate: async () => new URL('/.well-known/jwks.json', await fastify.authServer.origin()) }
  })
  // The audit trail (plugins/app/mcp-audit): reads batched, everything else written before the call answers.
  const registry = createToolRegistry(ALL_TOOLS, (error, tool, { log }) => (log ?? fastify.log).error({ err: error, tool }, 'MCP tool failed'),
    fastify.mcpAudit.record)
  const { checkToken, identifyAgent } = createMcpAuthentication({
    baseUrl: config.BASE_URL,
    sql: fastify.sql,
    verify,
    originPolicy: createOriginPolicy({ baseUrl: config.BASE_URL, corsOrigins: config.corsOrigins }),
    firstReadOf: (body) => registry.firstReadOf(body)
  })
  const modern = createModernLeg(registry, resource, fastify.log)
  fastify.addHook('onClose', async () => modern.close())

  return {
    checkToken,
    identifyAgent,
    errorHandler: jsonRpcErrors,
    refuseBatch,
    handlePost: async (request, reply) => {
      // request.em: scoped to the agent's tenant by authentication, and only forked if a tool uses it.
      // Aborted when the connection closes: a tool following its job (mcp/job-progress.ts) stops when nobody waits.
      const gone = new AbortController()
      // (Only when the answer was not finished: an abort makes an error object, a cost on every call otherwise.)
      reply.raw.once('close', () => { if (!reply.raw.writableFinished) gone.abort() })
      const { actor } = request
      const prefetched = prefetchedReadOf(request)
      const scope = userScope(fastify.sql, actor, () => request.em, prefetched === undefined ? undefined : (read) => servingPrefetched(read, actor, prefetched))
      const context = { scope, app: fastify, log: request.log, signal: gone.signal }
      // 2026-07-28 requests carry their version in `_meta`; everything else is served as before.
      if (!await isLegacyPost(request)) return modern.serve(request, reply, context)
      const body = request.body as Parameters<typeof invalidParamsMessage>[0]
      const invalid = invalidParamsMessage(body)
      if (invalid !== undefined) return sendInvalidParams(reply, body.id, invalid)
      const server = createMcpServer(registry, context)
      return handleMcpPost(server, request, reply, resource)
    }
  }
}
