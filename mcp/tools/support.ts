import { Type } from 'typebox'
import { Id } from '../../schemas/common.ts'
import { CreateTicketBody, ListTicketsQuery, ReplyBody } from '../../schemas/tickets.ts'
import { trimTopLevelStrings } from '../../lib/trim.ts'
import { defineTool, READ_ONLY } from './tool.ts'

const TicketRef = { ticket_id: Type.String({ ...Id, description: 'The ticket id (from list_tickets)' }) }

export const supportTools = [
  defineTool({
    name: 'list_tickets',
    title: 'List support tickets',
    description: 'The company\'s support tickets, latest activity first, filtered by `status` (open, answered, closed) ' +
      'or `priority`; paginated with `page` and `per_page`.',
    input: ListTicketsQuery,
    annotations: READ_ONLY,
    run: async ({ app, scope }, { status, priority, page = 1, per_page: perPage = 25 }) =>
      app.tickets.list(scope, { status, priority, page, perPage })
  }),

  defineTool({
    name: 'get_ticket',
    title: 'Read a support ticket',
    description: 'One ticket with its whole thread of messages (from the company and from support staff).',
    input: Type.Object(TicketRef, { additionalProperties: false }),
    annotations: READ_ONLY,
    run: async ({ app, scope }, { ticket_id: id }) => ({ ticket: await app.tickets.get(scope, id) })
  }),

  defineTool({
    name: 'create_ticket',
    title: 'Open a support ticket',
    description: 'Opens a ticket with the support team on behalf of the person; the description becomes its first ' +
      'message. Use it for problems the agent cannot solve itself (billing questions, failures in `error` state).',
    input: CreateTicketBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    prepare: trimTopLevelStrings,
    run: async ({ app, scope }, input) => ({ ticket: await app.tickets.create(scope, input) })
  }),

  defineTool({
    name: 'reply_to_ticket',
    title: 'Reply to a support ticket',
    description: 'Adds a message to a ticket\'s thread (a closed ticket is reopened). Answers the updated ticket.',
    input: Type.Object({ ...TicketRef, ...ReplyBody.properties }, { additionalProperties: false }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    prepare: (input) => ({ ...input, ...trimTopLevelStrings({ message: input.message }) }),
    run: async ({ app, scope }, { ticket_id: id, message }) => ({ ticket: await app.tickets.reply(scope, id, { message }) })
  })
]
