import type { FastifyError } from 'fastify'
import type { ValidateFunction } from 'ajv'
import { compileJsonValidator } from '../lib/validation.ts'
import { assertStorableText, toErrorBody } from '../plugins/app/http/envelope.ts'
import type { ToolContext, ToolDefinition } from './tools/tool.ts'

/** A tool as `tools/list` describes it (MCP 2025-11-25 Tool). */
export interface ListedTool {
  name: string
  title: string
  description: string
  inputSchema: Record<string, unknown>
  annotations: ToolDefinition['annotations'] & { title: string }
}

export interface ToolResult {
  [key: string]: unknown
  content: Array<{ type: 'text', text: string }>
  structuredContent: Record<string, unknown>
  isError?: boolean
}

export type ToolErrorLogger = (error: unknown, tool: string, context: ToolContext) => void

/** JSON Schema as plain data: TypeBox's symbol-keyed markers dropped, an object schema as MCP requires. */
function toInputSchema (tool: ToolDefinition): Record<string, unknown> {
  const schema = JSON.parse(JSON.stringify(tool.input)) as Record<string, unknown>
  if (schema.type !== 'object') throw new Error(`Tool ${tool.name}: its input must be an object schema`)
  return schema
}

/**
 * The tools, described once for `tools/list` and validated once per call with
 * the same rules as REST bodies. A failure becomes a tool result with
 * `isError: true` and the REST envelope's code and message, so an agent reads
 * the same `VALIDATION_FAILED`, `NOT_FOUND` or `FORBIDDEN` a portal client would.
 */
export function createToolRegistry (tools: ToolDefinition[], logError: ToolErrorLogger) {
  const byName = new Map<string, { tool: ToolDefinition, validate: ValidateFunction }>()
  const listed: ListedTool[] = []
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`Tool ${tool.name} is defined twice`)
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
    return {
      isError: true,
      content: [{ type: 'text', text: `${body.code}: ${body.message}` }],
      structuredContent: { success: false, error: body }
    }
  }

  return {
    list: (): ListedTool[] => listed,
    has: (name: string): boolean => byName.has(name),

    async call (name: string, args: unknown, context: ToolContext): Promise<ToolResult> {
      const entry = byName.get(name)
      if (entry === undefined) throw new Error(`Unknown tool ${name}`)
      // The arguments were parsed for this request alone: validation may fill defaults in place.
      const input = args ?? {}
      try {
        assertStorableText(input, 'arguments')
        const prepared = entry.tool.prepare === undefined ? input : entry.tool.prepare(input as Record<string, unknown>)
        if (!entry.validate(prepared)) {
          throw Object.assign(new Error('invalid arguments'), { validation: entry.validate.errors ?? [], validationContext: 'arguments' })
        }
        const result = await entry.tool.run(context, prepared as never)
        return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result }
      } catch (error) {
        return failure(error, name, context)
      }
    }
  }
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>
