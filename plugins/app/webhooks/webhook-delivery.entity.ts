import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { WebhookEndpoint } from './webhook-endpoint.entity.ts'
import { WebhookEvent } from './webhook-event.entity.ts'

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = typeof DELIVERY_STATUSES[number]

/**
 * One event to one endpoint, delivered by one pg-boss job whose id is this row's
 * id. Attempts are counted from the claim on (webhook-delivery.job.ts).
 */
const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    event: () => p.manyToOne(WebhookEvent).deleteRule('cascade'),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    responseStatus: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    lastError: p.string().length(500).nullable(),
    /** Retries stop after this (WEBHOOK_RETRY_HOURS after the first send). */
    retryUntil: timestamp(),
    lockedUntil: timestamp().nullable(),
    deliveredAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  indexes: [{ properties: ['endpoint', 'createdAt'] }]
})

export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery)
