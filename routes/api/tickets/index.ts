import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AUTHENTICATED, IdParams, responses } from '../../../schemas/common.ts'
import { CreateTicketBody, ListTicketsQuery, ReplyBody, TicketListResponse, TicketResponse } from '../../../schemas/tickets.ts'
import { trimBodyStrings } from './trim-body.ts'
import { TicketNotFound } from '../../../plugins/app/tickets/tickets.errors.ts'

const BODY_ERRORS = [...AUTHENTICATED, 413, 415]

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('', {
    schema: {
      tags: ['tickets'],
      operationId: 'listTickets',
      summary: 'List the company\'s support tickets',
      description: 'Every member sees all of the company\'s tickets, newest activity first. Filter by `status` and `priority`; paginated.',
      querystring: ListTicketsQuery,
      response: responses({ 200: TicketListResponse }, AUTHENTICATED)
    }
  }, async (request) => {
    const { status, priority, page = 1, per_page: perPage = 25 } = request.query
    return { success: true as const, ...await fastify.tickets.list(request.scope, { status, priority, page, perPage }) }
  })

  fastify.post('/create', {
    preValidation: trimBodyStrings,
    schema: {
      tags: ['tickets'],
      operationId: 'createTicket',
      summary: 'Open a support ticket',
      description: 'Any member of the company may open one. The description becomes the first message of the thread. Answers 201 with the ticket and its thread.',
      body: CreateTicketBody,
      response: responses({ 201: TicketResponse }, BODY_ERRORS)
    }
  }, async (request, reply) => {
    const ticket = await fastify.tickets.create(request.scope, request.body)
    return reply.code(201).send({ success: true as const, ticket })
  })

  fastify.get('/:id', {
    schema: {
      tags: ['tickets'],
      operationId: 'getTicket',
      summary: 'A ticket with its thread',
      description: 'The thread is oldest first and starts with the description. Another company\'s ticket answers 404.',
      params: IdParams,
      response: responses({ 200: TicketResponse }, [...AUTHENTICATED, 404, TicketNotFound])
    }
  }, async (request) => ({ success: true as const, ticket: await fastify.tickets.get(request.scope, request.params.id) }))

  fastify.post('/:id/reply', {
    preValidation: trimBodyStrings,
    schema: {
      tags: ['tickets'],
      operationId: 'replyToTicket',
      summary: 'Reply to a ticket',
      description: 'Adds a message from the signed-in member and sets the status to `open`; a closed ticket is reopened. Answers the updated ticket with its whole thread (the new message last).',
      params: IdParams,
      body: ReplyBody,
      response: responses({ 200: TicketResponse }, [...BODY_ERRORS, 404, TicketNotFound])
    }
  }, async (request) => ({
    success: true as const,
    ticket: await fastify.tickets.reply(request.scope, request.params.id, request.body)
  }))
}

export default routes
