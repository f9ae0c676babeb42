import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { plainCallOf, SingleCallTransport } from './single-call-transport.ts'

/** Hop-by-hop and body-framing headers the Web Response carries but Fastify sets itself. */
const SKIPPED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection'])

/**
 * The Fastify request as a Web Request for the SDK: same method and headers, no body (Fastify
 * parsed it; the SDK gets it as `parsedBody`). `signal` aborts it when the client is gone.
 */
export function toWebRequest (request: FastifyRequest, url: string, signal?: AbortSignal): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value)
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
  }
  return new Request(url, { method: request.method, headers, ...(signal === undefined ? {} : { signal }) })
}

/**
 * Sends the SDK's Web Response through Fastify, so the reply keeps the app's hooks (request id,
 * security headers, logging): an SSE body is streamed as it comes (when `streams` allows it), any other body sent whole.
 */
export async function sendWebResponse (reply: FastifyReply, response: Response, streams = true): Promise<FastifyReply> {
  reply.code(response.status)
  response.headers.forEach((value, name) => { if (!SKIPPED_HEADERS.has(name)) reply.header(name, value) })
  if (streams && response.body !== null && response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
    return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream))
  }
  const body = await response.text()
  return reply.send(body === '' ? undefined : body)
}

/** A `tools/call` whose `_meta` carries a `progressToken`: the client waits for progress notifications before the result. */
export function asksForProgress (body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const { method, params } = body as { method?: unknown, params?: { _meta?: { progressToken?: unknown } } }
  const token = params?._meta?.progressToken
  return method === 'tools/call' && (typeof token === 'string' || typeof token === 'number')
}

/**
 * Runs one 2025-era POST through a stateless Streamable HTTP transport (no session) and sends
 * its answer through Fastify; a plain request (mcp/single-call-transport.ts) goes to the
 * server in process, answered as the transport would in JSON mode. Answers are JSON, except for a tool call that asks for progress:
 * its notifications and then its result go on an SSE stream (the transport's mode without `enableJsonResponse`).
 */
export async function handleMcpPost (server: Server, request: FastifyRequest, reply: FastifyReply, url: string): Promise<FastifyReply> {
  const streamed = asksForProgress(request.body)
  const plain = streamed ? undefined : plainCallOf(request)
  if (plain !== undefined) {
    const transport = new SingleCallTransport()
    await server.connect(transport)
    const answer = await transport.call(plain, request.headers)
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(answer))
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed })
  await server.connect(transport)
  // In JSON mode the Response comes back once every answer is in; in SSE mode the transport closes the stream
  // after the result. Either way nothing is left running: the server and transport are dropped, not closed
  // (closing makes an error object per request for no listener).
  const response = await transport.handleRequest(toWebRequest(request, url), { parsedBody: request.body })
  return sendWebResponse(reply, response, streamed)
}
