import { randomUUID } from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { CallScope } from '../../../lib/call-scope.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { Jobs } from '../../external/jobs.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { WebhookDelivery } from './webhook-delivery.entity.ts'
import { WEBHOOK_DELIVERY_QUEUE } from './webhook-delivery.queue.ts'
import { WebhookEvent } from './webhook-event.entity.ts'
import { PING_EVENT } from './webhook-events.ts'
import { addDelivery } from './webhook-fanout.ts'
import { toDeliveryView, type WebhookDeliveryView } from './webhook.view.ts'
import { WebhookDeliveryNotFound } from './webhooks.errors.ts'
import type { WebhooksService } from './webhooks.service.ts'

export interface DeliveriesServiceDeps {
  endpoints: Pick<WebhooksService, 'endpointOf'>
  jobs: Pick<Jobs, 'send' | 'wake'>
  retryHours: number
}

/** An endpoint's deliveries (admins only): the log, a redelivery, a test ping. */
export function createDeliveriesService ({ endpoints, jobs, retryHours }: DeliveriesServiceDeps) {
  async function deliveryOf (em: EntityManager, id: string): Promise<WebhookDelivery> {
    const delivery = await em.findOne(WebhookDelivery, id, { populate: ['event'] })
    if (delivery === null) throw WebhookDeliveryNotFound()
    return delivery
  }

  /** A new delivery of `eventId` to the endpoint, with its job; the queue is woken after the commit. */
  async function deliver (em: EntityManager, tenantId: string, endpointId: string, eventId: (tx: EntityManager) => Promise<string>): Promise<WebhookDeliveryView> {
    const id = await em.transactional(async (tx) => await addDelivery(tx, jobs, { tenantId, endpointId, eventId: await eventId(tx), retryHours }))
    jobs.wake(WEBHOOK_DELIVERY_QUEUE)
    return toDeliveryView(await deliveryOf(em.fork(), id))
  }

  return {
    /** Newest first. */
    async list ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, endpointId: string, page: { page: number, per_page: number }): Promise<{ deliveries: WebhookDeliveryView[], total: number }> {
      requireAdmin(actor, 'see webhook deliveries')
      await endpoints.endpointOf(em, endpointId)
      const [rows, total] = await em.findAndCount(WebhookDelivery, { endpoint: endpointId }, {
        populate: ['event'], orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.per_page, offset: (page.page - 1) * page.per_page
      })
      return { deliveries: rows.map(toDeliveryView), total }
    },

    /** The same event (same id and body) again, as a new delivery with its own attempts. */
    async redeliver ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
      requireAdmin(actor, 'redeliver webhooks')
      await endpoints.endpointOf(em, endpointId)
      const delivery = await deliveryOf(em, deliveryId)
      if (delivery.endpoint.id !== endpointId) throw WebhookDeliveryNotFound()
      return await deliver(em, actor.tenantId, endpointId, async () => delivery.event.id)
    },

    /** A `ping` event to this endpoint only, whatever it subscribed to (a disabled endpoint's ping fails at once). */
    async ping ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, endpointId: string): Promise<WebhookDeliveryView> {
      requireAdmin(actor, 'test webhooks')
      const endpoint = await endpoints.endpointOf(em, endpointId)
      return await deliver(em, actor.tenantId, endpoint.id, async (tx) => {
        const event = tx.create(WebhookEvent, {
          id: randomUUID(),
          tenant: tx.getReference(Tenant, actor.tenantId),
          type: PING_EVENT,
          title: 'Test event',
          targetType: 'webhook',
          targetId: endpoint.id,
          instanceId: null,
          data: { webhook_id: endpoint.id, url: endpoint.url, message: 'A test event from the ERP portal' },
          fannedOutAt: new Date()
        })
        await tx.flush()
        return event.id
      })
    }
  }
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>
