import { Type } from 'typebox'
import { defineError } from '../lib/errors.ts'
import { requireAdmin } from '../lib/roles.ts'
import type { ToolContext } from './tools/tool.ts'

export const ConfirmationRequired = defineError('CONFIRMATION_REQUIRED', 'Ask the person first, then pass the instance\'s subdomain in `confirm`', 400)
export const ConfirmationRefused = defineError('CONFIRMATION_REFUSED', 'confirm does not match the instance\'s subdomain: nothing was changed', 400)
export const ConfirmationDeclined = defineError('CONFIRMATION_DECLINED', 'The person declined: nothing was changed', 400)
export const ConfirmationCancelled = defineError('CONFIRMATION_CANCELLED', 'The person dismissed the question: nothing was changed', 400)

/** The `confirm` argument of a destructive tool: optional in the schema, so a call without it gets CONFIRMATION_REQUIRED saying what to pass. */
export const confirmArgument = (what = 'once the person agreed') => Type.Optional(Type.String({
  minLength: 1,
  maxLength: 40,
  description: `The instance's subdomain, typed again ${what}; without it nothing happens and the answer says what to pass`
}))

/** The key of the confirmation question among a call's input requests and of its answer among the retry's input responses. */
export const CONFIRM_QUESTION_KEY = 'confirm'

/** A form question for the person (MCP elicitation, form mode): one text field. */
export interface QuestionForPerson {
  key: string
  message: string
  requestedSchema: {
    type: 'object'
    properties: Record<string, { type: 'string', title: string, description: string, minLength: number, maxLength: number }>
    required: string[]
  }
}

/** The person's answer to a form question, as the client sent it back (untrusted: checked like `confirm`). */
export type PersonAnswer = { action: 'accept', content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' }

/**
 * A call's way to ask the person (MCP 2026-07-28, multi round-trip): present only when the client
 * declared form elicitation in this request. `answer` reads what the client's retry carries.
 */
export interface PersonPrompt {
  answer: (key: string) => PersonAnswer | undefined
}

/** Thrown by a tool that needs the person's answer first: the call answers `input_required` with the question, nothing runs. */
export class PersonMustAnswer extends Error {
  readonly question: QuestionForPerson
  constructor (question: QuestionForPerson) {
    super(`The person must answer: ${question.message}`)
    this.question = question
  }
}

export interface DestructiveIntent {
  tool: string
  /** As the service words its admin rule, e.g. "delete backups". */
  adminAction: string
  /** What is lost, e.g. "deleting backup #4 removes its archive for good". */
  consequence: string
  /** The tool's own existence check (e.g. the backup), so its not-found answers as without a confirmation. */
  exists?: () => Promise<unknown>
  /** The service compares the value with the subdomain itself (restore's BACKUP_CONFIRMATION_MISMATCH, as for REST). */
  serviceChecksValue?: boolean
}

function confirmationQuestion (intent: DestructiveIntent, subdomain: string): QuestionForPerson {
  return {
    key: CONFIRM_QUESTION_KEY,
    message: `${intent.consequence}. To go ahead, type the instance's subdomain, ${subdomain}. Nothing changes unless you do.`,
    requestedSchema: {
      type: 'object',
      properties: {
        subdomain: { type: 'string', title: 'Instance subdomain', description: `Type ${subdomain} to confirm`, minLength: 1, maxLength: 40 }
      },
      required: ['subdomain']
    }
  }
}

/**
 * The value the person gave through elicitation, when the call can ask: no answer yet asks
 * (PersonMustAnswer); declined or dismissed is a refusal that changes nothing; an accepted
 * form's `subdomain` is checked like `confirm`. Undefined when the client cannot be asked.
 */
function answerFromPerson (context: ToolContext, intent: DestructiveIntent, subdomain: string): string | undefined {
  const prompt = context.personPrompt
  if (prompt === undefined) return undefined
  const answer = prompt.answer(CONFIRM_QUESTION_KEY)
  if (answer === undefined) throw new PersonMustAnswer(confirmationQuestion(intent, subdomain))
  if (answer.action === 'decline') throw ConfirmationDeclined(`The person declined ${intent.tool}: nothing was changed.`)
  if (answer.action === 'cancel') throw ConfirmationCancelled(`The person dismissed the question of ${intent.tool} without answering: nothing was changed.`)
  const typed = answer.content.subdomain
  return typeof typed === 'string' ? typed : ''
}

/**
 * The gate of a destructive tool: the person's role first, then that the instance and what else
 * is named exist, then the instance's subdomain typed again: from `confirm`, or (MCP 2026-07-28,
 * a client that declared form elicitation) asked of the person by the server itself with an
 * `input_required` answer, the client's retry carrying theirs. A refusal changes nothing.
 * Nothing to go on: CONFIRMATION_REQUIRED; another value: CONFIRMATION_REFUSED (naming the
 * subdomain, as REST's restore does), unless the service checks it. Answers the value to act on.
 */
export async function requireConfirmation (context: ToolContext, instanceId: number, confirm: string | undefined, intent: DestructiveIntent): Promise<string> {
  const { app, scope } = context
  requireAdmin(scope.actor, intent.adminAction)
  const { subdomain } = await app.instances.get(scope, instanceId)
  await intent.exists?.()
  const given = confirm ?? answerFromPerson(context, intent, subdomain)
  if (given === undefined) {
    throw ConfirmationRequired(`${intent.consequence}. Ask the person first; if they agree, call ${intent.tool} again with \`confirm\` set to the instance's subdomain (get_instance shows it). Nothing was changed.`, { field: 'confirm' })
  }
  if (intent.serviceChecksValue !== true && given !== subdomain) {
    throw ConfirmationRefused(`confirm must be the instance's subdomain "${subdomain}": ${intent.consequence}. Nothing was changed.`, { field: 'confirm' })
  }
  return given
}
