import { Type } from 'typebox'
import { BIGINT_MAX, BigInt53, Int4, INT4_MAX } from './common.ts'

const JsonRpcId = Type.Union([Type.String(), BigInt53({ minimum: -BIGINT_MAX })], { description: 'Request id, echoed in the response' })

export const JsonRpcMessage = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Optional(JsonRpcId),
  method: Type.Optional(Type.String({ description: 'e.g. server/discover, initialize, tools/list, tools/call, notifications/initialized' })),
  params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Unknown())
}, { additionalProperties: true, description: 'A JSON-RPC 2.0 message (MCP)' })

/** One message per POST: the protocol versions served here (2025-06-18, 2025-11-25, 2026-07-28) have no batches. */
export const McpRequestBody = JsonRpcMessage

export const McpHeaders = Type.Object({
  accept: Type.Optional(Type.String({ description: 'Must list both application/json and text/event-stream' })),
  'mcp-protocol-version': Type.Optional(Type.String({ description: '2026-07-28 (as in the request\'s `_meta`), or 2025-11-25 or 2025-06-18 (after initialize)' })),
  'mcp-method': Type.Optional(Type.String({ description: '2026-07-28: required, the body\'s `method` (HeaderMismatch -32020 otherwise)' })),
  'mcp-name': Type.Optional(Type.String({ description: '2026-07-28: required on tools/call, the body\'s `params.name` (HeaderMismatch -32020 otherwise)' }))
})

export const JsonRpcResponse = Type.Unknown({ description: 'The JSON-RPC response' })

export const JsonRpcErrorResponse = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Union([JsonRpcId, Type.Null()]),
  error: Type.Object({ code: Int4({ minimum: -INT4_MAX - 1, description: '-32700 parse error, -32600 invalid request, -32602 invalid params, -32000 transport, -32020 header mismatch, -32022 unsupported protocol version' }), message: Type.String() })
}, { description: 'A protocol error' })
