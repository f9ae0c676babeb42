import type { FastifyRequest } from 'fastify'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * The 2025-era request that needs nothing of the Streamable HTTP transport: one JSON-RPC
 * request (not `initialize`, not asking for progress), answered as JSON, from a client whose
 * headers the transport would accept as they are (Accept names both media types, the body is
 * `application/json`, the protocol version header is one the SDK supports). Anything else,
 * including every request the transport refuses, goes through the transport itself.
 */
export function plainCallOf (request: FastifyRequest): JSONRPCRequest | undefined {
  const accept = header(request, 'accept')
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined
  const contentType = header(request, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase()
  if (contentType !== 'application/json') return undefined
  const version = header(request, 'mcp-protocol-version')
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined
  const parsed = JSONRPCRequestSchema.safeParse(request.body)
  if (!parsed.success || parsed.data.method === 'initialize') return undefined
  return parsed.data
}

/**
 * A transport for exactly one request, handed to the SDK's server in process: what the
 * Streamable HTTP transport does for such a request in JSON mode (pass the message to the
 * server, keep its answer, drop notifications that have no stream to go on), without
 * converting the request to a Web Request and the answer to a Web Response.
 */
export class SingleCallTransport implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  readonly answer: Promise<JSONRPCMessage>
  private settle!: (message: JSONRPCMessage) => void

  constructor () {
    this.answer = new Promise((resolve) => { this.settle = resolve })
  }

  async start (): Promise<void> {}

  async close (): Promise<void> {}

  async send (message: JSONRPCMessage): Promise<void> {
    // An answer carries the request's id and no method; notifications and requests to the client carry a method.
    if ('id' in message && !('method' in message)) this.settle(message)
  }

  /** Hands the request to the connected server and waits for its answer. */
  async call (request: JSONRPCRequest, headers: FastifyRequest['headers']): Promise<JSONRPCMessage> {
    if (this.onmessage === undefined) throw new Error('SingleCallTransport: connect a server first')
    this.onmessage(request, { requestInfo: { headers } })
    return this.answer
  }
}
