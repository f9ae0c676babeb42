import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * One webhook event: written by the activity recorder in the transaction of the
 * change it reports (so it exists exactly when the change committed), then fanned
 * out to the subscribed endpoints (`fannedOutAt`), which freezes its `data`.
 */
const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    type: p.string().length(60),
    targetType: p.string().length(40).nullable(),
    targetId: p.string().length(64).nullable(),
    instanceId: p.bigint('number').nullable(),
    title: p.string().length(300),
    /** The resource as the API shows it, taken at fan-out. */
    data: p.json<Record<string, unknown>>().nullable(),
    fannedOutAt: timestamp().nullable().index(),
    createdAt: createdAt()
  }
})

export class WebhookEvent extends WebhookEventSchema.class {}
WebhookEventSchema.setClass(WebhookEvent)
