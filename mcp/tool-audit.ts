import type { UserActor } from '../lib/actor.ts'
import { capabilityLevel } from '../lib/agent-capabilities.ts'
import type { Sql } from '../lib/sql.ts'

/** Field names that hold secrets, whatever the tool: their values never reach the audit trail. */
const SECRET_NAME = /pass(word|phrase)?|secret|token|(^|_)key$|credential|private|authorization|cookie/i
const REDACTED = '[redacted]'
const MAX_TEXT = 200
const MAX_DEPTH = 3
const MAX_KEYS = 30

type JsonSchema = { properties?: Record<string, JsonSchema>, writeOnly?: boolean, format?: string, items?: JsonSchema, [key: string]: unknown }

/** A schema field that declares a secret: `writeOnly` (sent, never returned) or `format: password`. */
const secretBySchema = (schema: JsonSchema | undefined) => schema?.writeOnly === true || schema?.format === 'password'

/**
 * What the audit trail keeps of a tool's arguments: secrets removed by field
 * name and by the tool's input schema, long text cut, deep structures
 * flattened. Enough to tell what the agent asked for, never a credential.
 */
export function summariseArguments (args: unknown, schema: JsonSchema | undefined, depth = 0): unknown {
  if (typeof args === 'string') return args.length > MAX_TEXT ? `${args.slice(0, MAX_TEXT)}… (${args.length} characters)` : args
  if (args === null || typeof args !== 'object') return args
  if (depth >= MAX_DEPTH) return Array.isArray(args) ? `[${args.length} items]` : '{…}'
  if (Array.isArray(args)) return args.slice(0, MAX_KEYS).map((item) => summariseArguments(item, schema?.items, depth + 1))
  const summary: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args).slice(0, MAX_KEYS)) {
    const field = schema?.properties?.[key]
    summary[key] = SECRET_NAME.test(key) || secretBySchema(field) ? REDACTED : summariseArguments(value, field, depth + 1)
  }
  return summary
}

const COLUMNS = 'tenant_id, grant_id, client_id, client_name, user_id, tool, arguments, outcome, duration_ms, created_at'

const INSERT_CALL = {
  name: 'mcp-record-tool-call',
  text: `INSERT INTO agent_tool_calls (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)`
}

/** Many calls in one statement: one array per column, rows in array order (mcp/read-audit-buffer.ts). */
const INSERT_CALLS = {
  name: 'mcp-record-tool-calls',
  text: `INSERT INTO agent_tool_calls (${COLUMNS})
SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::jsonb[], $8::text[], $9::int[], $10::timestamptz[])`
}

export interface ToolCallRecord {
  tool: string
  arguments: unknown
  /** `ok` or the error code the agent got. */
  outcome: string
  durationMs: number
}

/** A call to record: who made it, what it was, and when it ended (the row's `created_at`). */
export interface ToolCallRow {
  actor: UserActor
  call: ToolCallRecord
  at: Date
}

/** The row's column values, in COLUMNS order, cut to the columns' lengths. */
function columnValues ({ actor, call, at }: ToolCallRow): unknown[] {
  return [actor.tenantId, actor.sessionId, (actor.clientId ?? '').slice(0, 255), (actor.clientName ?? '').slice(0, 200), actor.userId,
    call.tool.slice(0, 100), JSON.stringify(call.arguments ?? {}), call.outcome.slice(0, 64), Math.round(call.durationMs), at]
}

/** One row in agent_tool_calls: one INSERT, on the same pool as the request's own reads. */
export async function recordToolCall (sql: Sql, actor: UserActor, call: ToolCallRecord, at = new Date()): Promise<void> {
  await sql({ ...INSERT_CALL, values: columnValues({ actor, call, at }) })
}

/** Many rows in agent_tool_calls with one INSERT (one round trip, one statement whatever their number). */
export async function recordToolCalls (sql: Sql, rows: readonly ToolCallRow[]): Promise<void> {
  if (rows.length === 0) return
  const columns: unknown[][] = Array.from({ length: 10 }, () => [])
  for (const row of rows) columnValues(row).forEach((value, index) => columns[index]!.push(value))
  await sql({ ...INSERT_CALLS, values: columns })
}

/**
 * Whether a call goes in the audit trail: always, except, with `reads: 'refused'`
 * (MCP_AUDIT_READS), a read-only tool's call that succeeded.
 */
export function isRecorded (call: Pick<ToolCallRecord, 'tool' | 'outcome'>, reads: 'all' | 'refused'): boolean {
  return reads === 'all' || call.outcome !== 'ok' || capabilityLevel(call.tool) !== 'read'
}

/**
 * Whether a recorded call may wait in the read buffer (mcp/read-audit-buffer.ts) instead of
 * being written before the agent gets its answer: a read-only tool's successful call. Writes,
 * refusals, failures and questions are written at once.
 */
export function isDeferrable (call: Pick<ToolCallRecord, 'tool' | 'outcome'>): boolean {
  return call.outcome === 'ok' && capabilityLevel(call.tool) === 'read'
}
