import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Static, TSchema } from 'typebox'
import type { UserActor } from '../../lib/actor.ts'
import type { CallScope } from '../../lib/call-scope.ts'
import type { TenantRead } from '../../lib/tenant-sql.ts'
import type { PersonPrompt } from '../confirmation.ts'
import type { JobWatch, ProgressChannel } from '../job-progress.ts'

/** What a tool runs with: the scope of the agent acting for its person (`userScope`: its em scoped to their tenant), and the app's services. */
export interface ToolContext {
  scope: CallScope<UserActor>
  app: FastifyInstance
  /** The request's logger (its request id), for failures worth the operator's eye. */
  log?: FastifyBaseLogger
  /** Aborted when the HTTP request is gone (the client disconnected). */
  signal?: AbortSignal
  /** Set when the call carries a `progressToken` (mcp/job-progress.ts): a tool that started a job is followed to its end. */
  progress?: ProgressChannel
  /** Set on MCP 2026-07-28 when the client declared form elicitation: a destructive tool asks the person (mcp/confirmation.ts). */
  personPrompt?: PersonPrompt
  /**
   * Set on MCP 2026-07-28 when the client declared the Tasks extension (mcp/modern/tasks.ts): a tool
   * that started a job answers the task this makes (a CreateTaskResult) instead of following it.
   */
  startTask?: (tool: string, watch: JobWatch, first: Record<string, unknown>) => Record<string, unknown>
}

export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  /** Whether the tool reaches beyond this service (an ERP backend, e-mail). */
  openWorldHint: boolean
}

/**
 * One MCP tool. `input` is a TypeBox schema (the REST route's own body schema
 * where there is one, so validation is identical); `run` calls the same
 * service as the REST route and answers the object sent as `structuredContent`.
 */
export interface ToolDefinition<Input extends TSchema = TSchema> {
  name: string
  title: string
  /** When an agent should use it, and what it answers. */
  description: string
  input: Input
  annotations: ToolAnnotations
  /** Runs on the arguments before validation, as a route's preValidation hook runs on its body. */
  prepare?: (input: Record<string, unknown>) => Record<string, unknown>
  run: (context: ToolContext, input: Static<Input>) => Promise<Record<string, unknown>>
  /**
   * The read `run` makes first, from the call's raw arguments (undefined when they are not as
   * expected): run ahead, in the statement that checks the agent's token (mcp/agent-actor.ts),
   * and served to the tool's first read of that statement with those values. For hot read tools.
   */
  firstRead?: (input: Record<string, unknown>) => TenantRead | undefined
  /**
   * For a tool that starts a job: how to follow it from its first answer (undefined: nothing
   * started, e.g. already in that state). Used only when the client asked for progress.
   */
  follow?: (input: Static<Input>, result: Record<string, unknown>) => JobWatch | undefined
}

/** Keeps each tool's input type tied to its schema while the registry holds them all. */
export function defineTool<Input extends TSchema> (tool: ToolDefinition<Input>): ToolDefinition {
  return tool as unknown as ToolDefinition
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
