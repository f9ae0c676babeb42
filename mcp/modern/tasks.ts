import type { FastifyError } from 'fastify'
import {
  CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode,
  type Server, type ServerContext, type StandardSchemaV1
} from '@modelcontextprotocol/server'
import { assertInstanceVisible, assertMayUse } from '../../lib/agent-capabilities.ts'
import { toErrorBody } from '../../plugins/app/http/envelope.ts'
import type { JobSnapshot, JobWatch } from '../job-progress.ts'
import { errorResult, toolAnswer } from '../tool-registry.ts'
import { FRESH_KEY, watchOf } from '../tools/job-watches.ts'
import type { ToolContext } from '../tools/tool.ts'
import { decodeTaskId, encodeTaskId, type TaskClaims } from './task-id.ts'

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) for the tools that start a job.
 * A client that declares it in a `tools/call`'s `_meta` capabilities gets, from such a tool, a
 * task (`resultType: "task"`) instead of the job's handle; `tasks/get` then reads the job's own
 * row again, with the agent's tenant scope, and answers `working` until the job ends, then
 * `completed` with the tool's answer read at the end (as the progress path's last result).
 * Nothing is kept between requests: the task id carries what is followed (mcp/modern/task-id.ts).
 *
 * A job that ends in `error`/`failed` is a tool call that completed (the read says what happened,
 * as with progress), so its task is `completed`, with the reason in `statusMessage`: the extension
 * keeps `failed` for JSON-RPC errors. `tasks/cancel` is acknowledged and changes nothing (the
 * spec's cooperative cancellation: the job goes on); `tasks/update` likewise (no task here ever
 * asks for input).
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** How long a task id can be followed: a day after its start (the job's rows stay; the read tools still answer after). */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000

/** The polling pace suggested to clients: the progress path reads once a second too. */
export const TASK_POLL_INTERVAL_MS = 1000

/** Whether this request's `_meta` capabilities declare the Tasks extension (an object, empty today). */
export function declaresTasks (ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined
  const declared = capabilities?.extensions?.[TASKS_EXTENSION]
  return typeof declared === 'object' && declared !== null && !Array.isArray(declared)
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The Task fields every answer carries. */
function taskFields (taskId: string, createdAt: number, lastUpdatedAt: number) {
  return { taskId, createdAt: iso(createdAt), lastUpdatedAt: iso(lastUpdatedAt), ttlMs: TASK_TTL_MS, pollIntervalMs: TASK_POLL_INTERVAL_MS }
}

/** `ToolContext.startTask` of a call whose client declared the extension: the CreateTaskResult of a started job. */
export function taskStarter (context: ToolContext, key: Buffer): NonNullable<ToolContext['startTask']> {
  const { actor } = context.scope
  return (tool, watch, first) => {
    const createdAt = Date.now()
    const fresh = FRESH_KEY[watch.subject.kind]
    const base = Object.fromEntries(Object.entries(first).filter(([name]) => name !== fresh))
    const taskId = encodeTaskId(key, { tool, subject: watch.subject, base, tenantId: actor.tenantId, grantId: actor.sessionId, createdAt })
    return {
      resultType: 'task',
      ...taskFields(taskId, createdAt, createdAt),
      status: 'working',
      statusMessage: `${tool} started; tasks/get follows it to its end.`
    }
  }
}

const notFound = (why: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: ${why}`)

/**
 * The task a `tasks/*` request names, once every check passed: the client declared the extension
 * (-32021 otherwise, as the spec requires); the id is one this portal made, for this tenant and
 * this agent's grant, not expired; the grant still allows the starting tool and its read tool, and
 * the instance (-32602 otherwise, the spec's error for a task that cannot be retrieved).
 */
function taskOf (context: ToolContext, key: Buffer, ctx: ServerContext, taskId: string): { claims: TaskClaims, watch: JobWatch } {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, 'Missing required client capability')
  }
  const { actor } = context.scope
  const claims = decodeTaskId(key, taskId)
  if (claims === undefined || claims.tenantId !== actor.tenantId || claims.grantId !== actor.sessionId) throw notFound('Task not found')
  if (Date.now() > claims.createdAt + TASK_TTL_MS) throw notFound('Task has expired')
  const watch = watchOf(claims.subject, claims.base)
  try {
    assertMayUse(actor, claims.tool)
    assertMayUse(actor, watch.poll.tool)
    if ('instanceId' in claims.subject) assertInstanceVisible(actor, claims.subject.instanceId)
  } catch (error) {
    const { body } = toErrorBody(error as FastifyError)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: ${body.code}: ${body.message}`, { code: body.code })
  }
  return { claims, watch }
}

/** The followed row in the answer as read again (the instance, backup, module or addon source), for its reason and its update time. */
function entityOf (watch: JobWatch, result: Record<string, unknown>): Record<string, unknown> | undefined {
  const key = FRESH_KEY[watch.subject.kind]
  const value = key === undefined ? undefined : result[key]
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined
}

/** The snapshot's line, with the reason the row gives when the job ended badly (`error`, or an instance's `status_message`). */
function statusMessageOf (entity: Record<string, unknown> | undefined, snapshot: JobSnapshot): string {
  const reason = entity?.error ?? (entity?.state === 'error' ? entity.status_message : undefined)
  return snapshot.done && typeof reason === 'string' && reason !== '' ? `${snapshot.message}: ${reason}` : snapshot.message
}

/** The row's latest own time (`updated_at`, a backup's `started_at` / `completed_at`…) when later than the start; else the start. */
function lastUpdateOf (entity: Record<string, unknown> | undefined, createdAt: number): number {
  const times = ['updated_at', 'started_at', 'completed_at', 'installed_at', 'last_synced_at']
    .map((name) => Date.parse(String(entity?.[name] ?? '')))
    .filter((time) => Number.isFinite(time))
  return Math.max(createdAt, ...times)
}

/**
 * `tasks/get`: the job's row read again, as the task's current state (DetailedTask). A completed
 * task's `result` is the CallToolResult as a 2026-07-28 `tools/call` would answer it (`resultType` included).
 */
async function getTask (context: ToolContext, key: Buffer, ctx: ServerContext, taskId: string): Promise<Record<string, unknown>> {
  const { claims, watch } = taskOf(context, key, ctx, taskId)
  let snapshot: JobSnapshot
  try {
    snapshot = await watch.read(context)
  } catch (error) {
    const { status, body } = toErrorBody(error as FastifyError)
    // A failed read (the database) is this request's error, -32603: the task is not over.
    if (status >= 500) throw error
    // The row is gone (e.g. the backup was deleted): the tool's read answers that error, so the task completes with it.
    return { ...taskFields(taskId, claims.createdAt, Date.now()), status: 'completed', statusMessage: `${body.code}: ${body.message}`, result: { resultType: 'complete', ...errorResult(body) } }
  }
  const entity = entityOf(watch, snapshot.result)
  const fields = taskFields(taskId, claims.createdAt, lastUpdateOf(entity, claims.createdAt))
  if (!snapshot.done) return { ...fields, status: 'working', statusMessage: snapshot.message }
  return { ...fields, status: 'completed', statusMessage: statusMessageOf(entity, snapshot), result: { resultType: 'complete', ...toolAnswer(snapshot.result) } }
}

/** `params` of the `tasks/*` requests: a `taskId` string (other members, e.g. `_meta`, pass). */
const TaskIdParams: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'erp-portal',
    validate: (value) => typeof value === 'object' && value !== null && typeof (value as { taskId?: unknown }).taskId === 'string'
      ? { value: value as { taskId: string } }
      : { issues: [{ message: 'params.taskId must be a string' }] }
  }
}

/** Answers `tasks/get`, `tasks/cancel` and `tasks/update` on this request's server. */
export function serveTasks (server: Server, context: ToolContext, key: Buffer): void {
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, async ({ taskId }, ctx) => getTask(context, key, ctx, taskId))
  // Acknowledged, nothing stops: a started instance change, backup, restore or install runs to its end (the spec lets the server decide).
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, ({ taskId }, ctx) => {
    taskOf(context, key, ctx, taskId)
    return {}
  })
  // No task here ever asks for input: responses are for no outstanding request, ignored as the spec says.
  server.setRequestHandler('tasks/update', { params: TaskIdParams }, ({ taskId }, ctx) => {
    taskOf(context, key, ctx, taskId)
    return {}
  })
}
