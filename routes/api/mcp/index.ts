import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createMcpEndpoint } from '../../../mcp/endpoint.ts'
import { sendError } from '../../../plugins/app/http/envelope.ts'
import { responses } from '../../../schemas/common.ts'
import { JsonRpcErrorResponse, JsonRpcResponse, McpHeaders, McpRequestBody } from '../../../schemas/mcp.ts'

/** The MCP endpoint for agents; its token checks, server and tools are in mcp/. */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const mcp = createMcpEndpoint(fastify)

  fastify.post('', {
    config: { auth: 'mcp' },
    onRequest: mcp.checkToken,
    preValidation: [mcp.identifyAgent, mcp.refuseBatch],
    errorHandler: mcp.errorHandler,
    schema: {
      tags: ['mcp'],
      operationId: 'postMcpMessage',
      summary: 'MCP endpoint (Streamable HTTP)',
      description: 'JSON-RPC over HTTP for MCP clients, protocol 2026-07-28 (`server/discover`, `tools/list`, `tools/call`; ' +
        'version, client info and capabilities in each request\'s `_meta`; `Mcp-Method` and `Mcp-Name` headers) and ' +
        '2025-11-25 / 2025-06-18 (`initialize`, `tools/list`, `tools/call`). Stateless (no ' +
        '`Mcp-Session-Id`); answers are JSON, or SSE for a call that asks for progress. Send `Accept: application/json, text/event-stream`. Needs an OAuth ' +
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
  }, mcp.handlePost)

  // Stateless: no server-to-client stream to open and no session to end.
  const refused = [
    { method: 'GET', operationId: 'openMcpStream', summary: 'Server-to-client stream (not offered)' },
    { method: 'DELETE', operationId: 'endMcpSession', summary: 'End a session (none are kept)' }
  ] as const
  for (const { method, operationId, summary } of refused) {
    fastify.route({
      method,
      url: '',
      config: { auth: 'mcp' },
      onRequest: mcp.checkToken,
      preValidation: mcp.identifyAgent,
      schema: {
        tags: ['mcp'],
        operationId,
        summary,
        description: 'The endpoint is stateless: 405, with `Allow: POST`.',
        response: responses({}, [401, 403, 405])
      },
      handler: async (_request, reply) => sendError(reply.header('allow', 'POST'), 405,
        { code: 'METHOD_NOT_ALLOWED', message: `${method} is not offered: this MCP endpoint is stateless; use POST` })
    })
  }
}

export default routes
