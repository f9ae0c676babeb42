import { sql, type FilterQuery } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { ACROSS_TENANTS, scopedEntityManager } from '../../../database/tenancy.ts'
import type { Tenant } from '../tenants/tenant.entity.ts'
import { TicketNotFound } from './tickets.errors.ts'
import { countMessages } from './message-counts.ts'
import { Ticket, type TicketPriority, type TicketStatus } from './ticket.entity.ts'
import { isUuid } from '../../../lib/uuid.ts'
import { checkPriority, checkStatus, supportActor } from './ticket-rules.ts'
import { toTicketSummary, type TicketDetailView, type TicketSummaryView } from './ticket.view.ts'
import type { TicketsService } from './tickets.service.ts'
import { pageInfo, pageWindow, type PageInfo } from '../../../lib/pages.ts'

export interface TenantRef {
  id: string
  subdomain: string
  name: string
}

export interface QueueQuery {
  page: number
  perPage: number
  status?: TicketStatus
  priority?: TicketPriority
  /** A tenant's subdomain. */
  tenant?: string
}

export type QueueItem = TicketSummaryView & { tenant: TenantRef }
export interface TicketInTenant { tenant: TenantRef, ticket: TicketDetailView }

const tenantRef = (tenant: Tenant): TenantRef => ({ id: tenant.id, subdomain: tenant.subdomain, name: tenant.name })

/** Most urgent first, then whoever has waited longest. */
const QUEUE_ORDER = [
  { [sql`array_position(array['urgent', 'high', 'normal', 'low'], ${sql.ref('priority')})`]: 'asc' as const },
  { lastMessageAt: 'asc' as const },
  { id: 'asc' as const }
]

/**
 * The support staff's side, shared by the support CLI (ops/support.ts) and the
 * operator routes. Staff work across tenants, so this is where crossing tenants
 * is explicit: the queue, and finding which tenant a ticket belongs to. Every
 * change then goes through the tickets service with an EntityManager scoped to
 * that tenant and a support actor, under the same rules as the portal.
 * `root` is any EntityManager (unscoped is fine).
 */
export function createSupportDesk ({ tickets }: { tickets: TicketsService }) {
  async function locate (root: EntityManager, ticketId: string): Promise<{ tenant: TenantRef, em: EntityManager }> {
    const ticket = isUuid(ticketId) ? await root.fork().findOne(Ticket, { id: ticketId }, { ...ACROSS_TENANTS, populate: ['tenant'] }) : null
    if (ticket === null) throw TicketNotFound()
    return { tenant: tenantRef(ticket.tenant), em: scopedEntityManager(root, ticket.tenant.id) }
  }

  return {
    async queue (root: EntityManager, query: QueueQuery): Promise<{ tickets: QueueItem[], pagination: PageInfo }> {
      const where: FilterQuery<Ticket> = {}
      if (query.status !== undefined) where.status = checkStatus(query.status)
      if (query.priority !== undefined) where.priority = checkPriority(query.priority)
      if (query.tenant !== undefined) where.tenant = { subdomain: query.tenant.trim().toLowerCase() }
      const em = root.fork()
      const [rows, total] = await em.findAndCount(Ticket, where, {
        ...ACROSS_TENANTS,
        populate: ['tenant', 'createdBy'],
        orderBy: QUEUE_ORDER,
        ...pageWindow({ page: query.page, per_page: query.perPage })
      })
      const counts = await countMessages(em, rows.map((ticket) => ticket.id), ACROSS_TENANTS.filters)
      return {
        tickets: rows.map((ticket) => ({ ...toTicketSummary(ticket, counts.get(ticket.id) ?? 0), tenant: tenantRef(ticket.tenant) })),
        pagination: pageInfo({ page: query.page, per_page: query.perPage }, total)
      }
    },

    async show (root: EntityManager, ticketId: string): Promise<TicketInTenant> {
      const { tenant, em } = await locate(root, ticketId)
      return { tenant, ticket: await tickets.get({ em }, ticketId) }
    },

    async reply (root: EntityManager, ticketId: string, staffName: string, message: string): Promise<TicketInTenant> {
      const { tenant, em } = await locate(root, ticketId)
      return { tenant, ticket: await tickets.reply({ em, actor: supportActor(tenant.id, staffName) }, ticketId, { message }) }
    },

    async close (root: EntityManager, ticketId: string, staffName: string): Promise<TicketInTenant> {
      const { tenant, em } = await locate(root, ticketId)
      return { tenant, ticket: await tickets.close({ em, actor: supportActor(tenant.id, staffName) }, ticketId) }
    }
  }
}

export type SupportDesk = ReturnType<typeof createSupportDesk>
