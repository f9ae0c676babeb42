import { Type } from 'typebox'
import { FiniteNumber, Success } from './common.ts'

export const WebhookParams = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9_-]{1,40}$', 'x-pattern-message': 'must be 1 to 40 lowercase letters, digits, hyphens or underscores', description: 'An enabled provider (PAYMENT_PROVIDERS), e.g. sandbox' })
})

export const WebhookResponse = Success({
  duplicate: Type.Boolean({ description: 'true: this transaction was already received; nothing changed' }),
  payment_status: Type.Optional(Type.Enum(['paid', 'failed'], { description: 'paid: applied to the subscription; failed: recorded but not applied (see reason)' })),
  reason: Type.Optional(Type.String({ description: 'Why the payment was not applied' })),
  activated: Type.Optional(Type.Boolean({ description: 'true when this payment activated the subscription' }))
}, { $id: 'PaymentWebhookResponse' })

export const SandboxPayBody = Type.Object({
  payment_reference: Type.String({ minLength: 1, maxLength: 64, description: 'The subscription\'s payment_reference' }),
  amount: Type.Optional(FiniteNumber({ minimum: 0, maximum: 1e9, description: 'In major units; defaults to the amount due (another amount simulates a wrong payment)' }))
}, { additionalProperties: false })
