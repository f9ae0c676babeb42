import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { createMcpHandler, isLegacyRequest, ProtocolError } from '@modelcontextprotocol/server'
import { sendWebResponse, toWebRequest } from '../http-bridge.ts'
import type { ToolRegistry } from '../tool-registry.ts'
import type { ToolContext } from '../tools/tool.ts'
import { createModernServer } from './server.ts'

/**
 * What the SDK's routing rule reads of a request whose body is already parsed: its method and
 * headers (`isLegacyRequest` reads the body only when it is not given). Not a whole Web Request,
 * which would copy every header on every call.
 */
function methodAndHeaders (request: FastifyRequest): Request {
  const get = (name: string): string | null => {
    const value = request.headers[name.toLowerCase()]
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
  }
  return { method: request.method, headers: { get } } as unknown as Request
}

/** Whether a POST is 2025-era traffic (no `_meta` envelope claim: `initialize`, a 2025 version header or none), by the SDK's own routing rule. */
export async function isLegacyPost (request: FastifyRequest): Promise<boolean> {
  return isLegacyRequest(methodAndHeaders(request), request.body)
}

/**
 * The 2026-07-28 leg of /api/mcp: the SDK's handler in strict mode (`legacy: 'reject'`; 2025-era
 * traffic never reaches it), which checks the `_meta` envelope, the protocol version
 * (UnsupportedProtocolVersion) and the `Mcp-Method` / `Mcp-Name` headers against the body
 * (HeaderMismatch) before asking for a server. The server is made per request from the tool
 * context the endpoint built for it (the authenticated agent, its tenant's scope).
 */
export function createModernLeg (registry: ToolRegistry, url: string, log: FastifyBaseLogger) {
  const contexts = new WeakMap<Request, ToolContext>()
  const handler = createMcpHandler(({ requestInfo }) => {
    const context = requestInfo === undefined ? undefined : contexts.get(requestInfo)
    if (context === undefined) throw new Error('MCP request without its tool context')
    return createModernServer(registry, context)
  }, {
    legacy: 'reject',
    onerror: (error) => {
      // The SDK answers refusals itself (bad envelope, header mismatch, unsupported version): the client's mistake, not ours.
      if (error instanceof ProtocolError || error.message.startsWith('Rejected ')) log.debug({ err: error }, 'MCP 2026-07-28 request refused')
      else log.error({ err: error }, 'MCP 2026-07-28 request failed')
    }
  })

  return {
    async serve (request: FastifyRequest, reply: FastifyReply, context: ToolContext): Promise<FastifyReply> {
      const webRequest = toWebRequest(request, url, context.signal)
      contexts.set(webRequest, context)
      const response = await handler.fetch(webRequest, { parsedBody: request.body })
      return sendWebResponse(reply, response)
    },
    /** Ends the exchanges still in flight (the app is closing). */
    close: async () => handler.close()
  }
}
