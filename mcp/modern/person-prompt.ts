import { CLIENT_CAPABILITIES_META_KEY, inputRequired, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server'
import type { PersonAnswer, PersonPrompt, QuestionForPerson } from '../confirmation.ts'

/**
 * Asking the person on MCP 2026-07-28 (multi round-trip requests): a tool that needs their answer
 * makes the call answer `resultType: "input_required"` with a form elicitation; the client asks
 * them and calls again with `inputResponses`, which `answer` reads. Each request stands alone:
 * nothing is kept between the two, the retry runs every check again.
 */

/** Form elicitation declared in this request's `_meta` (an empty `elicitation` object means form, as the spec says). */
export function declaresFormElicitation (ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined
  const elicitation = capabilities?.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  const modes = Object.keys(elicitation)
  return modes.length === 0 || modes.includes('form')
}

/** A bare ElicitResult from the client, or undefined for anything else (asked again). */
function toAnswer (raw: unknown): PersonAnswer | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const { action, content } = raw as { action?: unknown, content?: unknown }
  if (action === 'decline' || action === 'cancel') return { action }
  if (action !== 'accept') return undefined
  return { action, content: typeof content === 'object' && content !== null && !Array.isArray(content) ? content as Record<string, unknown> : {} }
}

/** The prompt of a `tools/call` whose client can answer a form; undefined otherwise (the tool falls back to `confirm`). */
export function personPromptFor (ctx: ServerContext): PersonPrompt | undefined {
  if (!declaresFormElicitation(ctx)) return undefined
  const responses = ctx.mcpReq.inputResponses ?? {}
  return { answer: (key) => toAnswer(responses[key]) }
}

/** The `input_required` result carrying the question as a form elicitation. */
export function askThePerson (question: QuestionForPerson): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [question.key]: inputRequired.elicit({ mode: 'form', message: question.message, requestedSchema: question.requestedSchema })
    }
  })
}
