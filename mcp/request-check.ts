import type { FastifyReply, FastifyRequest } from 'fastify'
import { CallToolRequestSchema, ErrorCode, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** The requests the server answers, with the SDK's own schema for each. */
const REQUEST_SCHEMAS: Record<string, { safeParse: (value: unknown) => { success: boolean, error?: { issues: Array<{ path: PropertyKey[], message: string }> } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema
}

interface JsonRpcBody { id?: unknown, method?: unknown, params?: Record<string, unknown> }

const kindOf = (value: unknown) => value === undefined
  ? 'nothing'
  : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`

/** What is wrong with a tools/call, in words an agent's author reads at a glance. */
function toolCallProblem (params: Record<string, unknown> | undefined): string | undefined {
  if (typeof params?.name !== 'string') return `params.name must be the tool's name, a string (got ${kindOf(params?.name)})`
  const args = params.arguments
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return `params.arguments must be a JSON object of the tool's arguments (got ${kindOf(args)})`
  }
  return undefined
}

/**
 * The params of a request the SDK would refuse with -32603 and a dump of its
 * schema validation: the spec's -32602 Invalid params with one short line
 * instead. Undefined when the request can go to the server.
 */
export function invalidParamsMessage (body: JsonRpcBody): string | undefined {
  if (typeof body.method !== 'string' || body.id === undefined) return undefined
  const schema = REQUEST_SCHEMAS[body.method]
  if (schema === undefined) return undefined
  if (body.method === 'tools/call') {
    const problem = toolCallProblem(body.params)
    if (problem !== undefined) return `Invalid params: ${problem}`
    // Nothing but a name and arguments, both checked above: what the SDK's schema asks of such a call.
    if (body.params !== undefined && Object.keys(body.params).every((key) => key === 'name' || key === 'arguments')) return undefined
  }
  const parsed = schema.safeParse(body)
  if (parsed.success) return undefined
  const issue = parsed.error?.issues[0]
  const path = issue === undefined ? '' : issue.path.map(String).join('.')
  return `Invalid params for ${body.method}: ${path === '' ? '' : `${path}: `}${issue?.message ?? 'not the expected shape'}`
}

/** A request with bad params answers -32602, as the server answers an unknown tool (HTTP 200, the request's id). */
export function sendInvalidParams (reply: FastifyReply, id: unknown, message: string): FastifyReply {
  return reply.code(200).type('application/json').send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message } })
}

/**
 * preValidation of POST /api/mcp: protocol versions 2025-06-18 and 2025-11-25
 * (the only ones negotiated here) removed JSON-RPC batching, so an array body
 * is an Invalid Request (-32600, id null), HTTP 400 as the transport answers
 * any message it cannot accept.
 */
export async function refuseBatch (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!Array.isArray(request.body)) return
  await reply.code(400).send({
    jsonrpc: '2.0',
    id: null,
    error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: JSON-RPC batches are not supported; send one message per POST (MCP 2025-06-18 and later)' }
  })
}
