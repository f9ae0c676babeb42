import { defineError } from '../../../lib/errors.ts'

export const WebhookNotFound = defineError('WEBHOOK_NOT_FOUND', 'Webhook endpoint not found', 404)
export const WebhookDeliveryNotFound = defineError('WEBHOOK_DELIVERY_NOT_FOUND', 'Webhook delivery not found', 404)
export const WebhookUrlInvalid = defineError('WEBHOOK_URL_INVALID', 'The endpoint URL is not acceptable', 400)
export const WebhookUrlRefused = defineError('WEBHOOK_URL_REFUSED', 'The endpoint\'s host is not on a public address', 400)
export const WebhookLimitReached = defineError('WEBHOOK_LIMIT_REACHED', 'The company has as many webhook endpoints as it may have', 409)
