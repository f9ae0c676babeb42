import type { FastifyError } from 'fastify'
import type { ValidateFunction } from 'ajv'
import { compileJsonValidator } from '../lib/validation.ts'
import { assertStorableText, toErrorBody } from '../plugins/app/http/envelope.ts'
import type { UserActor } from '../lib/actor.ts'
import type { TenantRead } from '../lib/tenant-sql.ts'
import { AGENT_CAPABILITIES, assertInstanceVisible, assertMayUse, mayUse } from '../lib/agent-capabilities.ts'
import type { ToolCallRecord } from './tool-audit.ts'
import { summariseArguments } from './tool-audit.ts'
import { followJob } from './job-progress.ts'
import { PersonMustAnswer, type QuestionForPerson } from './confirmation.ts'
import type { ToolContext, ToolDefinition } from './tools/tool.ts'

/** A tool as `tools/list` describes it (MCP 2025-11-25 Tool). */
export interface ListedTool {
  name: string
  title: string
  description: string
  inputSchema: ObjectSchema
  annotations: ToolDefinition['annotations'] & { title: string }
}

export interface ToolResult {
  [key: string]: unknown
  content: Array<{ type: 'text', text: string }>
  structuredContent: Record<string, unknown>
  isError?: boolean
}

/** A call that asks the person first (MCP 2026-07-28 `input_required`): nothing ran; the client calls again with the answer. */
export interface ToolQuestion {
  question: QuestionForPerson
}

export const isToolQuestion = (outcome: ToolOutcome): outcome is ToolQuestion => 'question' in outcome

/** A job-starting call answered with a task (MCP 2026-07-28 Tasks extension, mcp/modern/tasks.ts): the job was started, `task` is the CreateTaskResult. */
export interface ToolTask {
  task: Record<string, unknown>
}

export const isToolTask = (outcome: ToolOutcome): outcome is ToolTask => 'task' in outcome && !('content' in outcome)

export type ToolOutcome = ToolResult | ToolQuestion | ToolTask

/** The audit outcome of a call answered with a question for the person. */
export const ASKED_OUTCOME = 'input_required'

export type ToolErrorLogger = (error: unknown, tool: string, context: ToolContext) => void

/** Records one call in the audit trail (mcp/tool-audit.ts); a failure to record is logged, never the agent's problem. */
export type ToolCallAudit = (actor: UserActor, call: ToolCallRecord) => Promise<void>

type ObjectSchema = { type: 'object', [keyword: string]: unknown }

/** A tool's answer as a CallToolResult: the object as `structuredContent`, and as JSON text. */
export const toolAnswer = (result: Record<string, unknown>): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result })

/** A failed tool's CallToolResult: `isError`, the REST envelope's code and message. */
export const errorResult = (body: { code: string, message: string }): ToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${body.code}: ${body.message}` }],
  structuredContent: { success: false, error: body }
})

/** JSON Schema as plain data: TypeBox's symbol-keyed markers dropped, an object schema as MCP requires. */
function toInputSchema (tool: ToolDefinition): ObjectSchema {
  const schema = JSON.parse(JSON.stringify(tool.input)) as Record<string, unknown>
  if (schema.type !== 'object') throw new Error(`Tool ${tool.name}: its input must be an object schema`)
  return schema as ObjectSchema
}

/**
 * A job-starting tool called by a client that takes tasks answers a task that follows its job;
 * called with a `progressToken`, it waits for its job, sending progress (mcp/job-progress.ts);
 * otherwise (or when it started nothing) its first answer.
 */
async function followWhenAsked (tool: ToolDefinition, input: unknown, first: Record<string, unknown>, context: ToolContext): Promise<{ answer: Record<string, unknown> } | ToolTask> {
  if ((context.progress === undefined && context.startTask === undefined) || tool.follow === undefined) return { answer: first }
  const watch = tool.follow(input as never, first)
  if (watch === undefined) return { answer: first }
  if (context.startTask !== undefined) return { task: context.startTask(tool.name, watch, first) }
  if (context.progress === undefined) return { answer: first }
  return { answer: await followJob(watch, first, context, context.progress, { maxSeconds: context.app.config.MCP_PROGRESS_MAX_SECONDS }) }
}

/**
 * The tools, described once for `tools/list` and validated once per call with
 * the same rules as REST bodies. A failure becomes a tool result with
 * `isError: true` and the REST envelope's code and message, so an agent reads
 * the same `VALIDATION_FAILED`, `INSTANCE_NOT_FOUND` or `FORBIDDEN` a portal client would.
 * Each tool needs an agent level (lib/agent-capabilities.ts): `tools/list`
 * shows only the ones the grant allows, a call above it is refused before
 * anything runs, and an `instance_id` outside the grant's instances is not
 * found. Every call, refused or not, is recorded by `audit`.
 */
export function createToolRegistry (tools: ToolDefinition[], logError: ToolErrorLogger, audit?: ToolCallAudit) {
  const byName = new Map<string, { tool: ToolDefinition, validate: ValidateFunction }>()
  const listed: ListedTool[] = []
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`Tool ${tool.name} is defined twice`)
    if (!(tool.name in AGENT_CAPABILITIES)) throw new Error(`Tool ${tool.name} has no agent level in lib/agent-capabilities.ts`)
    byName.set(tool.name, { tool, validate: compileJsonValidator(tool.input) })
    listed.push({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toInputSchema(tool),
      annotations: { title: tool.title, ...tool.annotations }
    })
  }

  function failure (error: unknown, name: string, context: ToolContext): ToolResult {
    const { status, body } = toErrorBody(error as FastifyError)
    if (status >= 500) logError(error, name, context)
    return errorResult(body)
  }

  async function run (entry: { tool: ToolDefinition, validate: ValidateFunction }, input: unknown, context: ToolContext): Promise<ToolOutcome> {
    const { actor } = context.scope
    try {
      assertMayUse(actor, entry.tool.name)
      assertStorableText(input, 'arguments')
      const prepared = entry.tool.prepare === undefined ? input : entry.tool.prepare(input as Record<string, unknown>)
      if (!entry.validate(prepared)) {
        throw Object.assign(new Error('invalid arguments'), { validation: entry.validate.errors ?? [], validationContext: 'arguments' })
      }
      const instanceId = (prepared as { instance_id?: unknown }).instance_id
      if (typeof instanceId === 'number' || typeof instanceId === 'string') assertInstanceVisible(actor, instanceId)
      const first = await entry.tool.run(context, prepared as never)
      const followed = await followWhenAsked(entry.tool, prepared, first, context)
      if ('task' in followed) return followed
      return toolAnswer(followed.answer)
    } catch (error) {
      if (error instanceof PersonMustAnswer) return { question: error.question }
      return failure(error, entry.tool.name, context)
    }
  }

  return {
    /** The tools this actor may call: an agent sees those its grant's level allows. */
    list: (actor: UserActor): ListedTool[] => listed.filter((tool) => mayUse(actor, tool.name)),
    has: (name: string): boolean => byName.has(name),

    /** The read a `tools/call` body's tool makes first (its `firstRead`), if it declares one and the body is well formed. */
    firstReadOf (body: unknown): TenantRead | undefined {
      const { method, params } = (body ?? {}) as { method?: unknown, params?: { name?: unknown, arguments?: unknown } }
      if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined
      const args = params.arguments ?? {}
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
      return byName.get(params.name)?.tool.firstRead?.(args as Record<string, unknown>)
    },

    /**
     * Runs a tool: its result, or (only when `context.personPrompt` is set) a question for the
     * person, or (only when `context.startTask` is set) the task following the job it started.
     */
    async call (name: string, args: unknown, context: ToolContext): Promise<ToolOutcome> {
      const entry = byName.get(name)
      if (entry === undefined) throw new Error(`Unknown tool ${name}`)
      // The arguments were parsed for this request alone: validation may fill defaults in place.
      const input = args ?? {}
      const started = performance.now()
      const result = await run(entry, input, context)
      if (audit !== undefined) {
        const outcome = isToolQuestion(result)
          ? ASKED_OUTCOME
          : isToolTask(result) || result.isError !== true ? 'ok' : String((result.structuredContent.error as { code?: unknown } | undefined)?.code ?? 'ERROR')
        await audit(context.scope.actor, {
          tool: name,
          arguments: summariseArguments(input, listed.find((tool) => tool.name === name)?.inputSchema),
          outcome,
          durationMs: performance.now() - started
        }).catch((error: unknown) => logError(error, name, context))
      }
      return result
    }
  }
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>
