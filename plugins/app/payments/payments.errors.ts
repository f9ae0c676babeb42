import { defineError } from '../../../lib/errors.ts'

export const PaymentProviderNotFound = defineError('PAYMENT_PROVIDER_NOT_FOUND', 'No such payment provider is enabled', 404)
export const WebhookSignatureInvalid = defineError('WEBHOOK_SIGNATURE_INVALID', 'The webhook signature is missing or wrong', 401)
export const PaymentEventInvalid = defineError('PAYMENT_EVENT_INVALID', 'The payment event cannot be read', 400)
export const PaymentReferenceNotFound = defineError('PAYMENT_REFERENCE_NOT_FOUND', 'No subscription is waiting for this payment reference', 404)
