import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { responses } from '../schemas/common.ts'
import { JsonRpcErrorResponse, JsonRpcResponse, McpHeaders, McpRequestBody } from '../schemas/mcp.ts'
import { sendError, toErrorBody } from '../plugins/app/http/envelope.ts'
import { createAccessTokenVerifier } from './access-token.ts'
import { createMcpAuthentication } from './authenticate.ts'
import { handleMcpPost } from './http-bridge.ts'
import { createMcpServer } from './mcp-server.ts'
import { createOriginPolicy } from './origin-policy.ts'
import { createToolRegistry } from './tool-registry.ts'
import { ALL_TOOLS } from './tools/index.ts'

const MCP_PATH = '/api/mcp'

/** Bad JSON or a body that is not JSON-RPC: a JSON-RPC error, as MCP clients expect, not the REST envelope. */
function jsonRpcErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
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
 * The MCP endpoint (Streamable HTTP, stateless; protocol 2025-11-25 and
 * 2025-06-18). Agents authenticate with access tokens from our authorization
 * server; each tool calls the same service as the REST route, as the agent
 * acting for its person (activity records name the client).
 */
const mcpRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const resource = `${config.BASE_URL}${MCP_PATH}`
  const verify = createAccessTokenVerifier({
    issuer: config.BASE_URL,
    audience: resource,
    // The auth server's own address (as the portal's proxy uses), not BASE_URL: no round trip through the ingress.
    keys: new URL(`http://127.0.0.1:${config.AUTH_PORT}/.well-known/jwks.json`)
  })
  const authenticate = createMcpAuthentication({
    baseUrl: config.BASE_URL,
    sql: fastify.sql,
    verify,
    originPolicy: createOriginPolicy({ baseUrl: config.BASE_URL, corsOrigins: config.corsOrigins })
  })
  const registry = createToolRegistry(ALL_TOOLS, (error, tool) => fastify.log.error({ err: error, tool }, 'MCP tool failed'))

  fastify.post(MCP_PATH, {
    config: { auth: 'mcp' },
    onRequest: authenticate,
    errorHandler: jsonRpcErrors,
    schema: {
      tags: ['mcp'],
      summary: 'MCP endpoint (Streamable HTTP)',
      description: 'JSON-RPC over HTTP for MCP clients: `initialize`, `tools/list`, `tools/call`. Stateless (no ' +
        '`Mcp-Session-Id`); answers are JSON. Send `Accept: application/json, text/event-stream`. Needs an OAuth ' +
        'access token with scope `mcp` from this service\'s authorization server; a 401 carries the ' +
        '`WWW-Authenticate` challenge naming the protected resource metadata.',
      headers: McpHeaders,
      body: McpRequestBody,
      response: responses({
        200: JsonRpcResponse,
        202: Type.Null({ description: 'Notifications and responses accepted' }),
        400: JsonRpcErrorResponse,
        406: JsonRpcErrorResponse,
        415: JsonRpcErrorResponse
      }, [401, 403, 413])
    }
  }, async (request, reply) => {
    // request.em: scoped to the agent's tenant by authentication, and only forked if a tool uses it.
    const context = { actor: request.actor, app: fastify, get em () { return request.em } }
    const server = createMcpServer(registry, context)
    return handleMcpPost(server, request, reply, resource)
  })

  // Stateless: no server-to-client stream to open and no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    fastify.route({
      method,
      url: MCP_PATH,
      config: { auth: 'mcp' },
      onRequest: authenticate,
      schema: {
        tags: ['mcp'],
        summary: method === 'GET' ? 'Server-to-client stream (not offered)' : 'End a session (none are kept)',
        description: 'The endpoint is stateless: 405, with `Allow: POST`.',
        response: responses({}, [401, 403, 405])
      },
      handler: async (_request, reply) => sendError(reply.header('allow', 'POST'), 405,
        { code: 'METHOD_NOT_ALLOWED', message: `${method} is not offered: this MCP endpoint is stateless; use POST` })
    })
  }
}

export default fp(mcpRoutes, {
  name: 'mcp',
  dependencies: ['auth', 'instances', 'dashboard', 'activity', 'modules', 'plans', 'subscriptions', 'tickets', 'users', 'invitations']
})
