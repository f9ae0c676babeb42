import { type JSONRPCRequest, ProtocolError, ProtocolErrorCode, type Result, Server, type ServerContext } from '@modelcontextprotocol/server'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv'
import { SERVER_INFO } from '../mcp-server.ts'
import type { ProgressChannel } from '../job-progress.ts'
import { isToolQuestion, isToolTask, type ToolRegistry } from '../tool-registry.ts'
import type { ToolContext } from '../tools/tool.ts'
import { askThePerson, personPromptFor } from './person-prompt.ts'
import { taskIdKey } from './task-id.ts'
import { declaresTasks, serveTasks, TASKS_EXTENSION, taskStarter } from './tasks.ts'

export const MODERN_INSTRUCTIONS = 'Tools for one company account of a hosted-ERP service, acting for the person who connected this ' +
  'agent, with their role. Start with whoami. Instance changes, backups, restores, module installs and addon syncs are ' +
  'queued: poll the read tool each names, or send a progressToken with the call to wait for the end (a bounded time) with ' +
  'progress notifications, or declare the Tasks extension to get a task that tasks/get follows to its end. Destructive tools need the instance\'s subdomain typed again: a client that declares form elicitation ' +
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

/** The task id key, derived once from JWT_SECRET (the same on every replica). */
let taskKey: { secret: string, key: Buffer } | undefined
function taskKeyOf (context: ToolContext): Buffer {
  const secret = context.app.config.JWT_SECRET
  if (secret === undefined) throw new Error('JWT_SECRET must be resolved before the app is built')
  if (taskKey?.secret !== secret) taskKey = { secret, key: taskIdKey(secret) }
  return taskKey.key
}

/** Progress for a call with a `progressToken`: notifications on the call's own response, which the SDK turns into an SSE stream. */
function progressFor (ctx: ServerContext, context: ToolContext): ProgressChannel | undefined {
  const token = ctx.mcpReq._meta?.progressToken
  if (token === undefined) return undefined
  return {
    send: async (update) => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
    signal: context.signal === undefined ? ctx.mcpReq.signal : AbortSignal.any([ctx.mcpReq.signal, context.signal])
  }
}

/** Carries a task answer past the SDK's CallToolResult check (see TaskingServer). */
class TaskAnswer extends Error {
  readonly result: Record<string, unknown>
  constructor (result: Record<string, unknown>) {
    super('A tools/call answered with a task')
    this.result = result
  }
}

/**
 * The SDK's Server with one seam for the Tasks extension (mcp/modern/tasks.ts), of which the SDK has
 * no server side: a `tools/call` may answer a CreateTaskResult (`resultType: "task"`) in lieu of a
 * CallToolResult, which the SDK's `tools/call` wrapper would check (and pad with `content: []`) as one.
 * The handler throws it as a TaskAnswer through that check; it is answered as it is, and the SDK
 * still stamps the server's identity in `_meta`.
 */
class TaskingServer extends Server {
  protected override _wrapHandler (method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler)
    if (method !== 'tools/call') return wrapped
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx)
      } catch (error) {
        if (error instanceof TaskAnswer) return error.result as Result
        throw error
      }
    }
  }
}

/**
 * The v2 SDK server of one 2026-07-28 request, on the same registry as the 2025 server
 * (mcp/mcp-server.ts): same tools per grant, same audit, same errors as tool results; plus the
 * Tasks extension for a client that declares it (mcp/modern/tasks.ts). The SDK
 * answers `server/discover` from its info, capabilities and instructions, and stamps
 * `resultType`, `ttlMs` and `cacheScope`.
 */
export function createModernServer (registry: ToolRegistry, context: ToolContext): Server {
  const server = new TaskingServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } },
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
    const startTask = declaresTasks(ctx) ? taskStarter(context, taskKeyOf(context)) : undefined
    const outcome = await registry.call(name, args, {
      ...context,
      ...(progress === undefined ? {} : { progress }),
      ...(personPrompt === undefined ? {} : { personPrompt }),
      ...(startTask === undefined ? {} : { startTask })
    })
    if (isToolTask(outcome)) throw new TaskAnswer(outcome.task)
    return isToolQuestion(outcome) ? askThePerson(outcome.question) : outcome
  })
  serveTasks(server, context, taskKeyOf(context))
  return server
}
