import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { IdParams, responses } from '../../../schemas/common.ts'
import {
  SupportCloseBody, SupportQueueQuery, SupportQueueResponse, SupportReplyBody, SupportTicketResponse, SupportTokenHeaders
} from '../../../schemas/tickets.ts'
import { trimBodyStrings } from '../tickets/trim-body.ts'
import { requireSupportToken, SupportApiDisabled, SupportTokenInvalid } from './support-token.ts'
import { TicketAlreadyClosed, TicketNotFound } from '../../../plugins/app/tickets/tickets.errors.ts'

const OFF = 'Answers 404 SUPPORT_API_DISABLED while SUPPORT_API_TOKEN is unset, 401 SUPPORT_TOKEN_INVALID for a missing or wrong X-Support-Token.'

/**
 * Operator routes for support staff, who are not portal users: guarded by the
 * shared SUPPORT_API_TOKEN instead of a portal session (hence `auth: 'support-token'`),
 * and working across tenants through the support desk, like the support CLI.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = { auth: 'support-token' as const }
  const onRequest = requireSupportToken(fastify.config.SUPPORT_API_TOKEN)
  const errors = [SupportTokenInvalid, SupportApiDisabled]
  const bodyErrors = [...errors, 409, 413, 415]

  fastify.get('/tickets', {
    config,
    onRequest,
    schema: {
      tags: ['support'],
      operationId: 'listSupportTickets',
      summary: 'Support queue across all tenants',
      description: `Most urgent first, then the longest waiting. Filter by status, priority and tenant subdomain. ${OFF}`,
      headers: SupportTokenHeaders,
      querystring: SupportQueueQuery,
      response: responses({ 200: SupportQueueResponse }, errors)
    }
  }, async (request) => {
    const { status, priority, tenant, page = 1, per_page: perPage = 25 } = request.query
    return { success: true as const, ...await fastify.supportDesk.queue(request.em, { status, priority, tenant, page, perPage }) }
  })

  fastify.get('/tickets/:id', {
    config,
    onRequest,
    schema: {
      tags: ['support'],
      operationId: 'getSupportTicket',
      summary: 'A ticket of any tenant, with its thread',
      description: OFF,
      headers: SupportTokenHeaders,
      params: IdParams,
      response: responses({ 200: SupportTicketResponse }, [...errors, TicketNotFound])
    }
  }, async (request) => ({ success: true as const, ...await fastify.supportDesk.show(request.em, request.params.id) }))

  fastify.post('/tickets/:id/reply', {
    config,
    onRequest,
    preValidation: trimBodyStrings,
    schema: {
      tags: ['support'],
      operationId: 'replyToSupportTicket',
      summary: 'Reply as support staff',
      description: `Adds a message from \`staff_name\` (from_support: true) and sets the status to \`answered\`. ${OFF}`,
      headers: SupportTokenHeaders,
      params: IdParams,
      body: SupportReplyBody,
      response: responses({ 200: SupportTicketResponse }, [...bodyErrors, TicketNotFound, TicketAlreadyClosed])
    }
  }, async (request) => {
    const { staff_name: staffName, message } = request.body
    return { success: true as const, ...await fastify.supportDesk.reply(request.em, request.params.id, staffName, message) }
  })

  fastify.post('/tickets/:id/close', {
    config,
    onRequest,
    preValidation: trimBodyStrings,
    schema: {
      tags: ['support'],
      operationId: 'closeSupportTicket',
      summary: 'Close a ticket as support staff',
      description: `Sets the status to \`closed\`; a later customer reply reopens it. Closing a closed ticket answers 409 TICKET_ALREADY_CLOSED. ${OFF}`,
      headers: SupportTokenHeaders,
      params: IdParams,
      body: SupportCloseBody,
      response: responses({ 200: SupportTicketResponse }, [...bodyErrors, TicketNotFound, TicketAlreadyClosed])
    }
  }, async (request) => ({ success: true as const, ...await fastify.supportDesk.close(request.em, request.params.id, request.body.staff_name) }))
}

export default routes
