import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Forbidden } from '../../../lib/errors.ts'
import { AUTHENTICATED, pageOf, responses, SuccessOnly } from '../../../schemas/common.ts'
import { CreateWebhookBody, UpdateWebhookBody, WebhookListQuery, WebhookListResponse, WebhookParams, WebhookResponse, WebhookWithSecretResponse } from '../../../schemas/webhooks.ts'
import deliveries from './deliveries.ts'
import { WebhookLimitReached, WebhookNotFound } from '../../../plugins/app/webhooks/webhooks.errors.ts'

const ADMIN = [...AUTHENTICATED, Forbidden]
const URL_RULES = '`url` must be https:// with a host that resolves only to public addresses: 400 `WEBHOOK_URL_INVALID` (another scheme, credentials, a fragment, a host that does not resolve) ' +
  'or 400 `WEBHOOK_URL_REFUSED` (loopback, private, link-local or metadata addresses), `details.field` = `url`. 400 `VALIDATION_FAILED` naming `events` and the known types for an unknown event type.'

const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { webhooks } = fastify

  fastify.get('', {
    schema: {
      tags: ['webhooks'],
      operationId: 'listWebhooks',
      summary: 'The company\'s webhook endpoints (admin)',
      description: 'Oldest first. Secrets are never returned here. Paged: `page`, `per_page` (docs/api.md, "Lists and pages").',
      querystring: WebhookListQuery,
      response: responses({ 200: WebhookListResponse }, ADMIN)
    }
  }, async (request) => ({ success: true as const, ...await webhooks.listPage(request.scope, pageOf(request.query)) }))

  fastify.post('', {
    schema: {
      tags: ['webhooks'],
      operationId: 'createWebhook',
      summary: 'Add a webhook endpoint (admin)',
      description: `Answers the endpoint and its signing \`secret\`, shown this once. ${URL_RULES} 409 \`WEBHOOK_LIMIT_REACHED\` past 20 endpoints.`,
      body: CreateWebhookBody,
      response: responses({ 201: WebhookWithSecretResponse }, [...ADMIN, 409, 413, 415, WebhookLimitReached])
    }
  }, async (request, reply) => reply.code(201).send({ success: true as const, ...await webhooks.create(request.scope, request.body) }))

  fastify.get('/:id', {
    schema: {
      tags: ['webhooks'],
      operationId: 'getWebhook',
      summary: 'One webhook endpoint (admin)',
      params: WebhookParams,
      response: responses({ 200: WebhookResponse }, [...ADMIN, 404, WebhookNotFound])
    }
  }, async (request) => ({ success: true as const, webhook: await webhooks.get(request.scope, request.params.id) }))

  fastify.put('/:id', {
    schema: {
      tags: ['webhooks'],
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint (admin)',
      description: `Any of the fields; the same rules apply. ${URL_RULES} \`enabled: true\` turns on an endpoint the service disabled.`,
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: responses({ 200: WebhookResponse }, [...ADMIN, 404, 413, 415, WebhookNotFound])
    }
  }, async (request) => ({ success: true as const, webhook: await webhooks.update(request.scope, request.params.id, request.body) }))

  fastify.delete('/:id', {
    schema: {
      tags: ['webhooks'],
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint (admin)',
      description: 'Removes the endpoint and its delivery log; deliveries not yet made are not attempted.',
      params: WebhookParams,
      response: responses({ 200: SuccessOnly }, [...ADMIN, 404, WebhookNotFound])
    }
  }, async (request) => {
    await webhooks.remove(request.scope, request.params.id)
    return { success: true as const }
  })

  fastify.post('/:id/rotate-secret', {
    schema: {
      tags: ['webhooks'],
      operationId: 'rotateWebhookSecret',
      summary: 'Give a webhook endpoint a new secret (admin)',
      description: 'Answers the new secret, shown this once. For WEBHOOK_SECRET_GRACE_HOURS (24 by default) every delivery carries two `v1` signatures, the new secret\'s first, ' +
        'so a receiver can switch without losing events. No body.',
      params: WebhookParams,
      response: responses({ 200: WebhookWithSecretResponse }, [...ADMIN, 404, WebhookNotFound])
    }
  }, async (request) => ({ success: true as const, ...await webhooks.rotateSecret(request.scope, request.params.id) }))

  await fastify.register(deliveries)
}

export default routes
