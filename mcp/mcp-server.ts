import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { isToolQuestion, isToolTask, type ToolOutcome, type ToolRegistry, type ToolResult } from './tool-registry.ts'
import type { ProgressChannel } from './job-progress.ts'
import type { ToolContext } from './tools/tool.ts'

export const SERVER_INFO = { name: 'erp-portal', title: 'Hosted ERP portal', version: '1.0.0' }

const INSTRUCTIONS = 'Tools for one company account of a hosted-ERP service, acting for the person who connected this ' +
  'agent, with their role. Start with whoami. Instance changes, backups, restores, module installs and addon syncs are ' +
  'queued: poll the read tool each names, or send a progressToken with the call to wait for the end (a bounded time) with ' +
  'progress notifications. Destructive tools take the instance\'s subdomain in `confirm`: ask the person first. Errors come back ' +
  'as tool results with isError and a stable code (INSTANCE_NOT_FOUND, TICKET_NOT_FOUND, FORBIDDEN, VALIDATION_FAILED, …) and message.'

/**
 * The SDK server for one request (stateless Streamable HTTP): created per
 * request because a server holds one transport, but cheap, since the tools are
 * described and compiled once in the registry and only looked up here.
 */
// The server makes a new Ajv (a costly object) per instance unless given one; it only uses it for elicitation.
const sharedValidator = new AjvJsonSchemaValidator()

/** 2025-era calls carry no way to ask the person (no `personPrompt`) nor to take a task (no `startTask`), so a tool answers neither here. */
function asResult (outcome: ToolOutcome): ToolResult {
  if (isToolQuestion(outcome)) throw new McpError(ErrorCode.InternalError, 'A tool asked the person on a 2025-era call')
  if (isToolTask(outcome)) throw new McpError(ErrorCode.InternalError, 'A tool answered a task on a 2025-era call')
  return outcome
}

export function createMcpServer (registry: ToolRegistry, context: ToolContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: sharedValidator
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: registry.list(context.scope.actor) }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta: meta } = request.params
    // An unknown tool is a protocol error (the spec's -32602); a tool that fails is a tool result with isError.
    if (!registry.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`)
    const token = meta?.progressToken
    if (token === undefined) return asResult(await registry.call(name, args, context))
    // Progress goes on this call's own SSE stream (http-bridge.ts answers such a call with SSE).
    const progress: ProgressChannel = {
      send: async (update) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
      signal: context.signal === undefined ? extra.signal : AbortSignal.any([extra.signal, context.signal])
    }
    return asResult(await registry.call(name, args, { ...context, progress }))
  })
  return server
}
