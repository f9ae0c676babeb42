import { pageInfo, pageWindow, type PageInfo, type PageRequest } from '../../../lib/pages.ts'
import { randomUUID } from 'node:crypto'
import { LockMode } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor } from '../../../lib/actor.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import type { OutboundPolicy } from '../../../lib/outbound-url.ts'
import { requireAdmin } from '../../../lib/roles.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { WebhookEndpoint } from './webhook-endpoint.entity.ts'
import { checkEndpointUrl, checkEvents } from './webhook-input.ts'
import { newWebhookSecret, type WebhookSecretSealer } from './webhook-secret.ts'
import { toWebhookView, type WebhookView } from './webhook.view.ts'
import { WebhookLimitReached, WebhookNotFound } from './webhooks.errors.ts'

/** Endpoints per company. */
export const WEBHOOK_ENDPOINTS_MAX = 20

export interface WebhooksServiceDeps {
  activity: ActivityService
  sealer: WebhookSecretSealer
  policy: OutboundPolicy
  /** How long the previous secret still signs after a rotation. */
  graceMs: number
}

export interface EndpointFields { url?: string, events?: string[], description?: string | null, enabled?: boolean }

/** A view with the secret: answered once, at creation and rotation. */
export interface WebhookWithSecret { webhook: WebhookView, secret: string }

/** A company's webhook endpoints (admins only): the address, the events, and the signing secret. */
export function createWebhooksService ({ activity, sealer, policy, graceMs }: WebhooksServiceDeps) {
  function record (tx: EntityManager, actor: Actor, endpoint: WebhookEndpoint, type: ActivityType, title: string): void {
    activity.record(tx, actor, { type, title: title.slice(0, 300), targetType: 'webhook', targetId: endpoint.id })
  }

  return {
    /** The endpoint row (tenant-scoped: another company's id is not found). */
    async endpointOf (em: EntityManager, id: string, lock = false): Promise<WebhookEndpoint> {
      const endpoint = await em.findOne(WebhookEndpoint, id, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {})
      if (endpoint === null) throw WebhookNotFound()
      return endpoint
    },

    async list ({ em, actor }: Pick<CallScope, 'em' | 'actor'>): Promise<WebhookView[]> {
      requireAdmin(actor, 'see webhooks')
      return (await em.find(WebhookEndpoint, {}, { orderBy: { createdAt: 'asc', id: 'asc' } })).map(toWebhookView)
    },

    /** One page of the endpoints (REST), oldest first, counted in the same call. */
    async listPage ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, request: PageRequest): Promise<{ webhooks: WebhookView[], pagination: PageInfo }> {
      requireAdmin(actor, 'see webhooks')
      const [rows, total] = await em.findAndCount(WebhookEndpoint, {}, { orderBy: { createdAt: 'asc', id: 'asc' }, ...pageWindow(request) })
      return { webhooks: rows.map(toWebhookView), pagination: pageInfo(request, total) }
    },

    async get ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<WebhookView> {
      requireAdmin(actor, 'see webhooks')
      return toWebhookView(await this.endpointOf(em, id))
    },

    async create ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, fields: EndpointFields & { url: string, events: string[] }): Promise<WebhookWithSecret> {
      requireAdmin(actor, 'add webhooks')
      const events = checkEvents(fields.events)
      const url = await checkEndpointUrl(fields.url, policy)
      const secret = newWebhookSecret()
      const endpoint = await em.transactional(async (tx) => {
        await tx.execute('SELECT 1 FROM tenants WHERE id = ? FOR UPDATE', [actor.tenantId])
        if (await tx.count(WebhookEndpoint, {}) >= WEBHOOK_ENDPOINTS_MAX) throw WebhookLimitReached(`A company may have ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints`)
        const created = tx.create(WebhookEndpoint, {
          id: randomUUID(),
          tenant: tx.getReference(Tenant, actor.tenantId),
          url,
          events,
          description: fields.description ?? null,
          enabled: fields.enabled ?? true,
          sealedSecret: '',
          sealedPreviousSecret: null,
          previousSecretExpiresAt: null,
          failingSince: null,
          disabledReason: null
        })
        created.sealedSecret = sealer.seal(secret, created.id)
        record(tx, actor, created, 'webhook.created', `Webhook endpoint ${url} added (${events.join(', ')})`)
        await tx.flush()
        return created
      })
      return { webhook: toWebhookView(endpoint), secret }
    },

    async update ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string, fields: EndpointFields): Promise<WebhookView> {
      requireAdmin(actor, 'change webhooks')
      const events = fields.events === undefined ? undefined : checkEvents(fields.events)
      const url = fields.url === undefined ? undefined : await checkEndpointUrl(fields.url, policy)
      const endpoint = await em.transactional(async (tx) => {
        const endpoint = await this.endpointOf(tx, id, true)
        if (url !== undefined) endpoint.url = url
        if (events !== undefined) endpoint.events = events
        if (fields.description !== undefined) endpoint.description = fields.description
        if (fields.enabled !== undefined) {
          endpoint.enabled = fields.enabled
          // Turned on again by a person: a fresh start, whatever failed before.
          if (fields.enabled) Object.assign(endpoint, { disabledReason: null, failingSince: null })
        }
        record(tx, actor, endpoint, 'webhook.updated', `Webhook endpoint ${endpoint.url} changed`)
        await tx.flush()
        return endpoint
      })
      return toWebhookView(endpoint)
    },

    /** Deletes the endpoint and its deliveries (pending ones are not attempted any more). */
    async remove ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<void> {
      requireAdmin(actor, 'delete webhooks')
      await em.transactional(async (tx) => {
        const endpoint = await this.endpointOf(tx, id, true)
        record(tx, actor, endpoint, 'webhook.deleted', `Webhook endpoint ${endpoint.url} deleted`)
        tx.remove(endpoint)
        await tx.flush()
      })
    },

    /** A new secret, answered once; the previous one still signs (a second `v1`) for the grace period. */
    async rotateSecret ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<WebhookWithSecret> {
      requireAdmin(actor, 'rotate webhook secrets')
      const secret = newWebhookSecret()
      const endpoint = await em.transactional(async (tx) => {
        const endpoint = await this.endpointOf(tx, id, true)
        await tx.populate(endpoint, ['sealedSecret'])
        Object.assign(endpoint, {
          sealedPreviousSecret: graceMs > 0 ? endpoint.sealedSecret : null,
          previousSecretExpiresAt: graceMs > 0 ? new Date(Date.now() + graceMs) : null,
          sealedSecret: sealer.seal(secret, endpoint.id)
        })
        record(tx, actor, endpoint, 'webhook.secret_rotated', `Webhook endpoint ${endpoint.url} got a new secret`)
        await tx.flush()
        return endpoint
      })
      return { webhook: toWebhookView(endpoint), secret }
    }
  }
}

export type WebhooksService = ReturnType<typeof createWebhooksService>
