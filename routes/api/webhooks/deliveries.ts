import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageInfo } from '../../../lib/pages.ts'
import { Forbidden } from '../../../lib/errors.ts'
import { WebhookDeliveryNotFound, WebhookNotFound } from '../../../plugins/app/webhooks/webhooks.errors.ts'
import { AUTHENTICATED, pageOf, responses } from '../../../schemas/common.ts'
import { WebhookDeliveriesQuery, WebhookDeliveryListResponse, WebhookDeliveryParams, WebhookDeliveryResponse, WebhookParams } from '../../../schemas/webhooks.ts'

const ADMIN_404 = [...AUTHENTICATED, Forbidden, WebhookNotFound]

/** An endpoint's delivery log, redelivery and test ping (registered by index.ts). */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { deliveries } = fastify.webhooks

  fastify.get('/:id/deliveries', {
    schema: {
      tags: ['webhooks'],
      operationId: 'listWebhookDeliveries',
      summary: 'An endpoint\'s deliveries, newest first (admin)',
      description: 'Each with its status, attempts, the last response\'s status code and duration, and the last error. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      params: WebhookParams,
      querystring: WebhookDeliveriesQuery,
      response: responses({ 200: WebhookDeliveryListResponse }, ADMIN_404)
    }
  }, async (request) => {
    const page = pageOf(request.query)
    const { deliveries: rows, total } = await deliveries.list(request.scope, request.params.id, page)
    return { success: true as const, deliveries: rows, pagination: pageInfo(page, total) }
  })

  fastify.post('/:id/deliveries/:delivery_id/redeliver', {
    schema: {
      tags: ['webhooks'],
      operationId: 'redeliverWebhook',
      summary: 'Send a delivery\'s event again (admin)',
      description: 'A new delivery of the same event (same `id` and body, so receivers can drop a duplicate), with its own attempts. Answers 202 with it. No body.',
      params: WebhookDeliveryParams,
      response: responses({ 202: WebhookDeliveryResponse }, [...ADMIN_404, WebhookDeliveryNotFound])
    }
  }, async (request, reply) => reply.code(202).send({
    success: true as const, delivery: await deliveries.redeliver(request.scope, request.params.id, request.params.delivery_id)
  }))

  fastify.post('/:id/test', {
    schema: {
      tags: ['webhooks'],
      operationId: 'pingWebhook',
      summary: 'Send a `ping` event to an endpoint (admin)',
      description: 'Queues a `ping` event to this endpoint only, whatever it subscribed to; follow it in the deliveries. Answers 202 with the delivery. No body.',
      params: WebhookParams,
      response: responses({ 202: WebhookDeliveryResponse }, ADMIN_404)
    }
  }, async (request, reply) => reply.code(202).send({ success: true as const, delivery: await deliveries.ping(request.scope, request.params.id) }))
}

export default routes
