import type { EntityManager } from '@mikro-orm/postgresql'
import { Tenant } from '../tenants/tenant.entity.ts'
import { WebhookEvent } from './webhook-event.entity.ts'
import { webhookEventOf } from './webhook-events.ts'

/** What the activity recorder knows of a change (activity.service.ts's ActivityInput). */
export interface ReportedChange {
  type: string
  title: string
  targetType?: string
  targetId?: string
  instanceId?: number | null
}

/**
 * Called by the activity recorder for every activity: when the type is one a webhook event
 * reports, adds the event to `em`'s unit of work, so the same flush writes it in the same
 * transaction as the change (or, rolled back, not at all). Fan-out to endpoints comes later.
 */
export function addWebhookEvent (em: EntityManager, tenantId: string, change: ReportedChange): WebhookEvent | undefined {
  const type = webhookEventOf(change.type)
  if (type === undefined) return undefined
  return em.create(WebhookEvent, {
    tenant: em.getReference(Tenant, tenantId),
    type,
    title: change.title.slice(0, 300),
    targetType: change.targetType ?? null,
    targetId: change.targetId ?? null,
    instanceId: change.instanceId ?? null,
    data: null,
    fannedOutAt: null
  })
}
