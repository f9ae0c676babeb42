import { Type } from 'typebox'
import { DELIVERY_STATUSES } from '../plugins/app/webhooks/webhook-delivery.entity.ts'
import { WEBHOOK_EVENT_TYPES } from '../plugins/app/webhooks/webhook-events.ts'
import { Id, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

const Stamp = Type.String({ format: 'date-time' })
const NullableStamp = Type.Union([Stamp, Type.Null()])

export const WebhookParams = Type.Object({ id: Id })
export const WebhookDeliveryParams = Type.Object({ id: Id, delivery_id: Id })

const EventType = Type.Enum(WEBHOOK_EVENT_TYPES, { description: 'A webhook event type (docs/webhooks.md lists them with their payloads)' })

export const Webhook = Type.Object({
  id: Id,
  url: Type.String({ description: 'The https URL events are POSTed to', examples: ['https://hooks.example.com/erp'] }),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(EventType, { description: 'The event types it receives' }),
  enabled: Type.Boolean({ description: 'false: no events are sent to it (turned off by a person, or by the service after days of failures: see `disabled_reason`)' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the service disabled it; null when it did not' }),
  failing_since: Type.Union([Stamp, Type.Null()], { description: 'The first failed attempt since the last success; null while deliveries succeed' }),
  previous_secret_expires_at: Type.Union([Stamp, Type.Null()], { description: 'After a rotation: until when the previous secret also signs (a second v1 signature)' }),
  created_at: Stamp,
  updated_at: Stamp
}, { $id: 'Webhook', description: 'A webhook endpoint. Its secret is answered once, at creation and rotation' })

const Secret = Type.String({ description: 'The signing secret (`whsec_…`): shown this once, store it now', examples: ['whsec_3q2+7w…'] })

const fields = {
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'https URL whose host resolves to public addresses (no user, password or fragment)' }),
  events: Type.Array(EventType, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length * 2, description: 'Event types to receive' }),
  description: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'A note for people' }),
  enabled: Type.Boolean({ description: 'Send events (default true); true again clears a disable by the service' })
}

export const CreateWebhookBody = Type.Object({
  url: fields.url,
  events: fields.events,
  description: Type.Optional(fields.description),
  enabled: Type.Optional(fields.enabled)
}, { additionalProperties: false })

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(fields.url),
  events: Type.Optional(fields.events),
  description: Type.Optional(fields.description),
  enabled: Type.Optional(fields.enabled)
}, { additionalProperties: false, minProperties: 1 })

export const WebhookDelivery = Type.Object({
  id: Id,
  event_id: Id,
  event_type: Type.String({ description: 'An event type, or `ping`' }),
  status: Type.Enum(DELIVERY_STATUSES, { description: '`pending` (attempted again later), `delivered` (a 2xx answer) or `failed` (retries ran out)' }),
  attempts: Int4({ description: 'Attempts made so far' }),
  response_status: Type.Union([Int4({ maximum: 999 }), Type.Null()], { description: 'HTTP status of the last attempt; null when no answer came' }),
  duration_ms: Type.Union([Int4(), Type.Null()], { description: 'How long the last attempt took' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Stamp,
  delivered_at: NullableStamp
}, { $id: 'WebhookDelivery', description: 'One event sent (or being sent) to one endpoint' })

export const WebhookResponse = Success({ webhook: ref(Webhook) }, { $id: 'WebhookResponse' })
export const WebhookWithSecretResponse = Success({ webhook: ref(Webhook), secret: Secret }, { $id: 'WebhookWithSecretResponse' })
export const WebhookListQuery = Pagination
export const WebhookListResponse = Success({ webhooks: Type.Array(ref(Webhook), { description: 'Oldest first' }), pagination: ref(PageInfo) }, { $id: 'WebhookListResponse' })
export const WebhookDeliveryResponse = Success({ delivery: ref(WebhookDelivery) }, { $id: 'WebhookDeliveryResponse' })
export const WebhookDeliveriesQuery = Pagination
export const WebhookDeliveryListResponse = Success({
  deliveries: Type.Array(ref(WebhookDelivery), { description: 'Newest first' }),
  pagination: ref(PageInfo)
}, { $id: 'WebhookDeliveryListResponse' })
