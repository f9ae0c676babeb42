import type { Actor, SystemActor } from '../../../lib/actor.ts'
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketPriority, type TicketStatus } from './ticket.entity.ts'
import { invalidField } from '../../../lib/errors.ts'

/** Lengths after trimming; the HTTP schemas (schemas/tickets.ts) use the same numbers. */
export const LIMITS = {
  subject: { min: 3, max: 200 },
  text: { min: 1, max: 10_000 },
  staffName: { min: 1, max: 80 }
} as const

/** Trims and checks a text field; the same 400 VALIDATION_FAILED as a schema failure. */
export function cleanText (field: string, value: unknown, limits: { min: number, max: number }): string {
  const text = typeof value === 'string' ? value.trim() : ''
  let problem: string | undefined
  if (typeof value !== 'string') problem = 'must be a string'
  else if (text.length < limits.min || text.length > limits.max) problem = `must be between ${limits.min} and ${limits.max} characters`
  else if (text.includes('\u0000')) problem = 'must not contain U+0000'
  if (problem !== undefined) throw invalidField(field, problem)
  return text
}

export function checkPriority (value: unknown): TicketPriority {
  return checkAllowed('priority', value, TICKET_PRIORITIES)
}

export function checkStatus (value: unknown): TicketStatus {
  return checkAllowed('status', value, TICKET_STATUSES)
}

function checkAllowed<T extends string> (field: string, value: unknown, allowed: readonly T[]): T {
  if (allowed.includes(value as T)) return value as T
  throw invalidField(field, `must be one of: ${allowed.join(', ')}`, { allowed })
}

/**
 * Support staff are not portal users: they act as a system actor whose job
 * names them, `support:<staff name>`, so the activity feed credits the person.
 */
const SUPPORT_JOB_PREFIX = 'support:'
// A name is one line of plain text: it is shown in threads and activity titles.
// oxlint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

export function supportActor (tenantId: string, staffName: string): SystemActor {
  const name = cleanText('staff_name', staffName, LIMITS.staffName)
  if (CONTROL_CHARACTER.test(name)) {
    throw invalidField('staff_name', 'must not contain control characters')
  }
  return { kind: 'system', tenantId, job: `${SUPPORT_JOB_PREFIX}${name}` }
}

/** The staff name when the actor is support staff; undefined for portal users and other jobs. */
export function supportStaffName (actor: Actor): string | undefined {
  if (actor.kind !== 'system' || !actor.job.startsWith(SUPPORT_JOB_PREFIX)) return undefined
  const name = actor.job.slice(SUPPORT_JOB_PREFIX.length).trim()
  return name === '' ? undefined : name
}
