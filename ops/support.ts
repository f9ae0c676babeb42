import { text } from 'node:stream/consumers'
import { parseArgs } from 'node:util'
import { loadConfigOrExit } from '../config/startup.ts'
import { isAppError } from '../lib/errors.ts'
import { createActivityService } from '../plugins/app/activity/activity.service.ts'
import { createSupportDesk, type TicketInTenant } from '../plugins/app/tickets/support-desk.ts'
import type { TicketPriority, TicketStatus } from '../plugins/app/tickets/ticket.entity.ts'
import { createTicketsService } from '../plugins/app/tickets/tickets.service.ts'
import { openOpsDatabase } from './database.ts'
import { formatQueue, formatThread } from './support-format.ts'

const USAGE = `Support desk for staff: tickets of every tenant, answered under the same rules as the portal.

usage: npm run support -- <command> [options]     (or: node ops/support.ts <command> …)

  list  [--status open|answered|closed] [--priority low|normal|high|urgent]
        [--tenant <subdomain>] [--page N] [--per-page N]
                                       the queue: most urgent first, then longest waiting
  show  <ticket-id>                    a ticket and its whole thread
  reply <ticket-id> --as "<staff name>" --message "<text>"
                                       answer as support (status becomes "answered");
                                       --message - reads the text from standard input
  close <ticket-id> --as "<staff name>"
                                       close it (a customer reply reopens it)

  --json   print the result as JSON instead of text
  --help   this text

Connects like the server: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR.
Exit status: 0 done, 1 refused or failed (the reason is printed), 2 wrong usage.`

class UsageError extends Error {}

const OPTIONS = {
  status: { type: 'string' },
  priority: { type: 'string' },
  tenant: { type: 'string' },
  page: { type: 'string' },
  'per-page': { type: 'string' },
  as: { type: 'string' },
  message: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const

function positiveInteger (name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1 || number > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}`)
  return number
}

function required (name: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`--${name} is required`)
  return value
}

async function main (): Promise<number> {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: OPTIONS, allowPositionals: true, strict: true })
  const [command, ticketId, ...extra] = positionals
  if (values.help === true || command === 'help') {
    console.log(USAGE)
    return 0
  }
  if (command === undefined) throw new UsageError('a command is required')
  if (!['list', 'show', 'reply', 'close'].includes(command)) throw new UsageError(`unknown command "${command}"`)
  if (command !== 'list' && ticketId === undefined) throw new UsageError(`${command} needs a ticket id`)
  if (extra.length > 0 || (command === 'list' && ticketId !== undefined)) throw new UsageError(`unexpected argument "${extra[0] ?? ticketId}"`)
  // Everything about the arguments is checked before connecting to the database.
  const staff = command === 'reply' || command === 'close' ? required('as', values.as) : undefined
  const message = command === 'reply' ? required('message', values.message) : undefined
  const page = positiveInteger('page', values.page, 1, 1_000_000)
  const perPage = positiveInteger('per-page', values['per-page'], 25, 100)

  const database = await openOpsDatabase(loadConfigOrExit())
  try {
    const desk = createSupportDesk({ tickets: createTicketsService({ activity: createActivityService() }) })
    const em = database.orm.em.fork()
    const id = ticketId ?? ''
    if (command === 'list') {
      const query = { page, perPage, status: values.status as TicketStatus | undefined, priority: values.priority as TicketPriority | undefined, tenant: values.tenant }
      const queue = await desk.queue(em, query)
      console.log(values.json === true ? JSON.stringify(queue, null, 2) : formatQueue(queue))
      return 0
    }
    let result: TicketInTenant
    let done = ''
    if (command === 'show') {
      result = await desk.show(em, id)
    } else if (command === 'reply') {
      result = await desk.reply(em, id, staff ?? '', message === '-' ? await text(process.stdin) : message ?? '')
      done = `Replied as ${staff}; the ticket is now ${result.ticket.status}.\n\n`
    } else {
      result = await desk.close(em, id, staff ?? '')
      done = `Closed by ${staff}.\n\n`
    }
    console.log(values.json === true ? JSON.stringify(result, null, 2) : done + formatThread(result))
    return 0
  } finally {
    await database.close()
  }
}

/** A refusal from the service reads like its HTTP error: code, message, and the allowed values when there are some. */
function describe (error: unknown): string {
  if (!isAppError(error)) return error instanceof Error ? error.message : String(error)
  const allowed = (error.details as { fields?: Array<{ allowed?: unknown[] }> } | undefined)?.fields?.[0]?.allowed
  return `${error.message} [${error.code}]${allowed === undefined ? '' : ` (allowed: ${allowed.join(', ')})`}`
}

try {
  process.exitCode = await main()
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
  console.error(`error: ${describe(error)}`)
  if (usage) console.error('\nRun with --help for usage.')
  process.exitCode = usage ? 2 : 1
}
