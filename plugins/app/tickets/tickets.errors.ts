import { defineError } from '../../../lib/errors.ts'

/**
 * Raised by the service's own checks (trimmed lengths, allowed values) for callers
 * that bypass the HTTP schemas, such as the support CLI. Over HTTP the schemas
 * catch the same inputs first and answer VALIDATION_FAILED.
 */
export const TicketInputInvalid = defineError('TICKET_INPUT_INVALID', 'Invalid ticket input', 400)
export const TicketAlreadyClosed = defineError('TICKET_ALREADY_CLOSED', 'This ticket is already closed', 409)
