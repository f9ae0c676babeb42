import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * A company's webhook endpoint: an https URL, the event types it wants and its
 * signing secret. The secret is sealed (webhook-secret.ts), bound to the row id,
 * and shown once; after a rotation the previous one signs too until
 * `previousSecretExpiresAt`.
 */
const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    url: p.string().length(2000),
    description: p.string().length(200).nullable(),
    /** Event types (webhook-events.ts) this endpoint receives. */
    events: p.json<string[]>(),
    enabled: p.boolean().default(true),
    sealedSecret: p.text().lazy(),
    sealedPreviousSecret: p.text().nullable().lazy(),
    previousSecretExpiresAt: timestamp().nullable(),
    /** The first failed attempt since the last success; null while deliveries succeed. */
    failingSince: timestamp().nullable(),
    /** Why the service disabled the endpoint (it failed for days); null when a person set `enabled`. */
    disabledReason: p.string().length(300).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class WebhookEndpoint extends WebhookEndpointSchema.class {}
WebhookEndpointSchema.setClass(WebhookEndpoint)
