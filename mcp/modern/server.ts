import { ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv'
import { SERVER_INFO } from '../mcp-server.ts'
import type { ProgressChannel } from '../job-progress.ts'
import { isToolQuestion, type ToolRegistry } from '../tool-registry.ts'
import type { ToolContext } from '../tools/tool.ts'
import { askThePerson, personPromptFor } from './person-prompt.ts'

export const MODERN_INSTRUCTIONS = 'Tools for one company account of a hosted-ERP service, acting for the person who connected this ' +
  'agent, with their role. Start with whoami. Instance changes, backups, restores, module installs and addon syncs are ' +
  'queued: poll the read tool each names, or send a progressToken with the call to wait for the end (a bounded time) with ' +
  'progress notifications. Destructive tools need the instance\'s subdomain typed again: a client that declares form elicitation ' +
  'gets an input_required answer asking the person; otherwise ask them first and pass it in `confirm`. Errors come back ' +
  'as tool results with isError and a stable code (INSTANCE_NOT_FOUND, TICKET_NOT_FOUND, FORBIDDEN, VALIDATION_FAILED, …) and message.'

/**
 * Cache hints of the cacheable results. `tools/list` depends on the grant's level and the
 * person's role, so it is `private` (never shared across authorization contexts), and kept a
 * minute: a raised level or a changed role shows within that time, and every call is checked
 * anyway. `server/discover` is the same for everyone.
 */
export const CACHE_HINTS = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 600_000, cacheScope: 'public' }
} as const

// As for the 2025 server: the SDK makes a new Ajv (a costly object) per server unless given one.
const sharedValidator = new AjvJsonSchemaValidator()

/** Progress for a call with a `progressToken`: notifications on the call's own response, which the SDK turns into an SSE stream. */
function progressFor (ctx: ServerContext, context: ToolContext): ProgressChannel | undefined {
  const token = ctx.mcpReq._meta?.progressToken
  if (token === undefined) return undefined
  return {
    send: async (update) => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
    signal: context.signal === undefined ? ctx.mcpReq.signal : AbortSignal.any([ctx.mcpReq.signal, context.signal])
  }
}

/**
 * The v2 SDK server of one 2026-07-28 request, on the same registry as the 2025 server
 * (mcp/mcp-server.ts): same tools per grant, same audit, same errors as tool results. The SDK
 * answers `server/discover` from its info, capabilities and instructions, and stamps
 * `resultType`, `ttlMs` and `cacheScope`.
 */
export function createModernServer (registry: ToolRegistry, context: ToolContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: MODERN_INSTRUCTIONS,
    cacheHints: CACHE_HINTS,
    jsonSchemaValidator: sharedValidator
  })
  server.setRequestHandler('tools/list', () => ({ tools: registry.list(context.scope.actor) }))
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params
    // An unknown tool is a protocol error (-32602), as on 2025-era requests; a tool that fails is a tool result with isError.
    if (!registry.has(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    const progress = progressFor(ctx, context)
    const personPrompt = personPromptFor(ctx)
    const outcome = await registry.call(name, args, {
      ...context,
      ...(progress === undefined ? {} : { progress }),
      ...(personPrompt === undefined ? {} : { personPrompt })
    })
    return isToolQuestion(outcome) ? askThePerson(outcome.question) : outcome
  })
  return server
}
