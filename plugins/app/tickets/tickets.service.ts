import { randomUUID } from 'node:crypto'
import { LockMode, type FilterQuery } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Actor, UserActor } from '../../../lib/actor.ts'
import { Forbidden } from '../../../lib/errors.ts'
import type { ActivityInput, ActivityService } from '../activity/activity.service.ts'
import type { ActivityType } from '../activity/activity-types.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'
import { Ticket, TicketMessage, type TicketPriority, type TicketStatus } from './ticket.entity.ts'
import { isUuid } from '../../../lib/uuid.ts'
import { LIMITS, checkPriority, checkStatus, cleanText, supportStaffName } from './ticket-rules.ts'
import { toTicketDetail, toTicketSummary, type TicketDetailView, type TicketSummaryView } from './ticket.view.ts'
import { TicketAlreadyClosed, TicketNotFound } from './tickets.errors.ts'
import { countMessages } from './message-counts.ts'
import type { CallScope } from '../../../lib/call-scope.ts'
import { pageInfo, pageWindow, type PageInfo } from '../../../lib/pages.ts'

export interface TicketListQuery {
  page: number
  perPage: number
  status?: TicketStatus
  priority?: TicketPriority
}

export interface NewTicketInput {
  subject: string
  description: string
  priority?: TicketPriority
}

/** Who writes a message: a portal user of the tenant, or a named member of support staff. */
type Speaker = { kind: 'customer', userId: string, name: string } | { kind: 'support', name: string }

function speakerOf (actor: Actor): Speaker {
  const staff = supportStaffName(actor)
  if (staff !== undefined) return { kind: 'support', name: staff }
  if (actor.kind === 'system') throw Forbidden('Only portal users and support staff can write in tickets')
  return { kind: 'customer', userId: actor.userId, name: actor.name }
}

const label = (speaker: Speaker) => speaker.kind === 'support' ? `Support (${speaker.name})` : speaker.name

/**
 * Support tickets: the one place for their rules, used by the portal routes,
 * the operator routes and the support CLI alike. `em` must be scoped to the
 * ticket's tenant (request.em, or scopedEntityManager for the support desk),
 * so another tenant's ticket is simply not found.
 *
 * Status: a customer message sets `open` (reopening a closed ticket), a support
 * message sets `answered`, and only support closes. The description is stored
 * as the first message of the thread as well, so the thread reads on its own.
 */
export function createTicketsService ({ activity }: { activity: ActivityService }) {
  async function detail (em: EntityManager, id: string): Promise<TicketDetailView> {
    const ticket = isUuid(id) ? await em.findOne(Ticket, { id }, { populate: ['createdBy'], refresh: true }) : null
    if (ticket === null) throw TicketNotFound()
    const messages = await em.find(TicketMessage, { ticket: ticket.id }, { orderBy: { createdAt: 'asc', id: 'asc' } })
    return toTicketDetail(ticket, messages)
  }

  /** Row lock: concurrent replies and closes on one ticket take turns, so the last status wins cleanly. */
  async function lockTicket (tx: EntityManager, id: string): Promise<Ticket> {
    const ticket = isUuid(id) ? await tx.findOne(Ticket, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null
    if (ticket === null) throw TicketNotFound()
    return ticket
  }

  function record (tx: EntityManager, actor: Actor, ticket: Ticket, type: ActivityType, title: string): void {
    const input: ActivityInput = { type, title: `${title} "${ticket.subject}"`, targetType: 'ticket', targetId: ticket.id }
    activity.record(tx, actor, input)
  }

  return {
    /** Tenant-wide: every member (admin or user) sees all of the company's tickets, newest activity first. */
    async list ({ em }: Pick<CallScope, 'em'>, query: TicketListQuery): Promise<{ tickets: TicketSummaryView[], pagination: PageInfo }> {
      const where: FilterQuery<Ticket> = {}
      if (query.status !== undefined) where.status = checkStatus(query.status)
      if (query.priority !== undefined) where.priority = checkPriority(query.priority)
      const [tickets, total] = await em.findAndCount(Ticket, where, {
        populate: ['createdBy'],
        orderBy: [{ lastMessageAt: 'desc' }, { id: 'desc' }],
        ...pageWindow({ page: query.page, per_page: query.perPage })
      })
      const counts = await countMessages(em, tickets.map((ticket) => ticket.id))
      return {
        tickets: tickets.map((ticket) => toTicketSummary(ticket, counts.get(ticket.id) ?? 0)),
        pagination: pageInfo({ page: query.page, per_page: query.perPage }, total)
      }
    },

    get ({ em }: Pick<CallScope, 'em'>, id: string): Promise<TicketDetailView> {
      return detail(em, id)
    },

    /** Any member of the tenant may open a ticket. */
    async create ({ em, actor }: Pick<CallScope<UserActor>, 'em' | 'actor'>, input: NewTicketInput): Promise<TicketDetailView> {
      const speaker = speakerOf(actor)
      if (speaker.kind !== 'customer') throw Forbidden('Tickets are opened by portal users')
      const subject = cleanText('subject', input.subject, LIMITS.subject)
      const description = cleanText('description', input.description, LIMITS.text)
      const priority = checkPriority(input.priority ?? 'normal')
      const id = randomUUID()
      await em.transactional(async (tx) => {
        const now = new Date()
        const tenant = tx.getReference(Tenant, actor.tenantId)
        const author = tx.getReference(User, speaker.userId)
        const ticket = tx.create(Ticket, { id, tenant, subject, description, priority, status: 'open', createdBy: author, lastMessageAt: now, closedAt: null, createdAt: now, updatedAt: now })
        tx.create(TicketMessage, { id: randomUUID(), tenant, ticket, author, authorName: speaker.name, fromSupport: false, message: description, createdAt: now })
        record(tx, actor, ticket, 'ticket.created', `${speaker.name} opened ticket`)
      })
      return detail(em, id)
    },

    /**
     * Adds a message. Who speaks decides the effect: a portal user's message sets
     * `open` (and reopens a closed ticket), a support message sets `answered`.
     */
    async reply ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string, input: { message: string }): Promise<TicketDetailView> {
      const speaker = speakerOf(actor)
      const message = cleanText('message', input.message, LIMITS.text)
      await em.transactional(async (tx) => {
        const ticket = await lockTicket(tx, id)
        const wasClosed = ticket.status === 'closed'
        // Strictly after the previous message, so the thread order never depends on a millisecond tie.
        const at = new Date(Math.max(Date.now(), ticket.lastMessageAt.getTime() + 1))
        tx.create(TicketMessage, {
          id: randomUUID(),
          tenant: ticket.tenant,
          ticket,
          author: speaker.kind === 'customer' ? tx.getReference(User, speaker.userId) : null,
          authorName: speaker.name,
          fromSupport: speaker.kind === 'support',
          message,
          createdAt: at
        })
        ticket.status = speaker.kind === 'support' ? 'answered' : 'open'
        ticket.closedAt = null
        ticket.lastMessageAt = at
        record(tx, actor, ticket, speaker.kind === 'support' ? 'ticket.support_replied' : 'ticket.replied', `${label(speaker)} replied to ticket`)
        if (wasClosed) record(tx, actor, ticket, 'ticket.reopened', `${label(speaker)} reopened ticket`)
      })
      return detail(em, id)
    },

    /** Support staff only; closing twice is a 409 rather than a second activity record. */
    async close ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, id: string): Promise<TicketDetailView> {
      const speaker = speakerOf(actor)
      if (speaker.kind !== 'support') throw Forbidden('Only support staff can close tickets')
      await em.transactional(async (tx) => {
        const ticket = await lockTicket(tx, id)
        if (ticket.status === 'closed') throw TicketAlreadyClosed()
        ticket.status = 'closed'
        ticket.closedAt = new Date()
        record(tx, actor, ticket, 'ticket.closed', `${label(speaker)} closed ticket`)
      })
      return detail(em, id)
    }
  }
}

export type TicketsService = ReturnType<typeof createTicketsService>
