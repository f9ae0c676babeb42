import { defineError } from '../../../lib/errors.ts'

// The service's own input checks (trimmed lengths, allowed values: ticket-rules.ts) answer
// VALIDATION_FAILED, like the schemas that catch the same inputs first over HTTP.
export const TicketNotFound = defineError('TICKET_NOT_FOUND', 'Ticket not found', 404)
export const TicketAlreadyClosed = defineError('TICKET_ALREADY_CLOSED', 'This ticket is already closed', 409)
