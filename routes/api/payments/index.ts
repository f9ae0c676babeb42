import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { responses } from '../../../schemas/common.ts'
import { SandboxPayBody, WebhookParams, WebhookResponse } from '../../../schemas/payments.ts'

const tags = ['payments']
const WEBHOOK_BODY_LIMIT = 65_536

const WEBHOOK_DESCRIPTION = 'Called by the payment provider, not by the portal. The sandbox sends JSON `{transaction_id, reference, amount, currency, status}` ' +
  '(amount in minor units, status `paid` or `failed`) signed as `X-Signature: sha256=<hex HMAC-SHA256 of the raw body>` with its webhook secret. ' +
  'Unknown or disabled provider: 404 PAYMENT_PROVIDER_NOT_FOUND; missing or wrong signature: 401 WEBHOOK_SIGNATURE_INVALID (nothing recorded); ' +
  'unreadable event: 400 PAYMENT_EVENT_INVALID; unknown reference: 404 PAYMENT_REFERENCE_NOT_FOUND (nothing recorded). ' +
  'A transaction already received answers 200 `duplicate: true` and changes nothing. A payment that is not exactly what is due ' +
  '(amount, currency, or nothing due) is recorded `failed` with its reason and answers 200, so the provider does not retry. ' +
  'A matching payment is recorded `paid` and activates the subscription.'

/**
 * Payment provider webhooks and the sandbox's "pay" button. The webhook needs
 * the exact bytes the provider signed, so its own encapsulated context parses
 * every content type into a Buffer; the rest of the app keeps its JSON parsing.
 */
const routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { payments } = fastify

  await fastify.register(async (context) => {
    const webhook = context.withTypeProvider<TypeBoxTypeProvider>()
    webhook.removeAllContentTypeParsers()
    webhook.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => { done(null, body) })

    webhook.post('/webhook/:provider', {
      config: { auth: 'none' },
      schema: {
        tags,
        operationId: 'receivePaymentWebhook',
        summary: 'Payment confirmation from a provider (public, signed)',
        description: WEBHOOK_DESCRIPTION,
        params: WebhookParams,
        response: responses({ 200: WebhookResponse }, [401, 404, 413])
      }
    }, async (request) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      return { success: true as const, ...await payments.receive(request.params.provider, rawBody, request.headers) }
    })
  })

  fastify.post('/sandbox/pay', {
    schema: {
      tags,
      operationId: 'paySandboxPayment',
      summary: 'Sandbox: pay a reference (admin)',
      description: 'Only while the `sandbox` provider is enabled (otherwise 404 PAYMENT_PROVIDER_NOT_FOUND): produces a signed sandbox event for one of the ' +
        'company\'s payment references and processes it exactly like the webhook, so a matching payment activates the subscription. `amount` (major units) ' +
        'defaults to the amount due; another amount simulates a wrong payment. Unknown reference: 404 PAYMENT_REFERENCE_NOT_FOUND. Administrators only.',
      body: SandboxPayBody,
      response: responses({ 200: WebhookResponse }, [401, 403, 404, 413, 415])
    }
  }, async (request) => ({
    success: true as const,
    ...await payments.sandboxPay(request.scope, { reference: request.body.payment_reference, amount: request.body.amount })
  }))
}

export default routes
