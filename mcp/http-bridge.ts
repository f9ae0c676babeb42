import type { FastifyReply, FastifyRequest } from 'fastify'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'

/** Hop-by-hop and body-framing headers the Web Response carries but Fastify sets itself. */
const SKIPPED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection'])

function toWebRequest (request: FastifyRequest, url: string): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value)
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
  }
  // The body was parsed by Fastify and is handed over as `parsedBody`; the Request carries none.
  return new Request(url, { method: request.method, headers })
}

/**
 * Runs one POST through a stateless Streamable HTTP transport (JSON answers,
 * no session) and sends the SDK's Web Response through Fastify, so the reply
 * keeps the app's hooks (request id, security headers, logging).
 */
export async function handleMcpPost (server: Server, request: FastifyRequest, reply: FastifyReply, url: string): Promise<FastifyReply> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  // In JSON mode the Response comes back once every answer is in, so nothing is left running: the server
  // and transport are dropped, not closed (closing makes an error object per request for no listener).
  const response = await transport.handleRequest(toWebRequest(request, url), { parsedBody: request.body })
  reply.code(response.status)
  response.headers.forEach((value, name) => { if (!SKIPPED_HEADERS.has(name)) reply.header(name, value) })
  const body = await response.text()
  return reply.send(body === '' ? undefined : body)
}
