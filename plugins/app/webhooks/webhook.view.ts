import type { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity.ts'
import type { WebhookEndpoint } from './webhook-endpoint.entity.ts'
import type { WebhookEventType } from './webhook-events.ts'

export interface WebhookView {
  id: string
  url: string
  description: string | null
  events: WebhookEventType[]
  enabled: boolean
  disabled_reason: string | null
  failing_since: string | null
  previous_secret_expires_at: string | null
  created_at: string
  updated_at: string
}

export interface WebhookDeliveryView {
  id: string
  event_id: string
  event_type: string
  status: DeliveryStatus
  attempts: number
  response_status: number | null
  duration_ms: number | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
}

const iso = (date: Date | null | undefined) => date == null ? null : date.toISOString()

/** The secret never appears here: it is answered once, beside this view, at creation and rotation. */
export function toWebhookView (endpoint: WebhookEndpoint): WebhookView {
  const previous = endpoint.previousSecretExpiresAt
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description ?? null,
    events: endpoint.events as WebhookEventType[],
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason ?? null,
    failing_since: iso(endpoint.failingSince),
    previous_secret_expires_at: previous != null && previous > new Date() ? previous.toISOString() : null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString()
  }
}

export function toDeliveryView (delivery: WebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.id,
    event_id: delivery.event.id,
    event_type: delivery.event.type,
    status: delivery.status,
    attempts: delivery.attempts,
    response_status: delivery.responseStatus ?? null,
    duration_ms: delivery.durationMs ?? null,
    last_error: delivery.lastError ?? null,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: iso(delivery.deliveredAt)
  }
}
