import type { TicketPriority, TicketStatus, Ticket, TicketMessage } from './ticket.entity.ts'

export interface PersonView {
  /** The portal user's id; null for support staff (not portal users) and deleted users. */
  id: string | null
  name: string
}

export interface TicketSummaryView {
  id: string
  subject: string
  priority: TicketPriority
  status: TicketStatus
  /** Every message of the thread, the opening description included. */
  message_count: number
  created_by: PersonView | null
  created_at: string
  updated_at: string
  last_message_at: string
  closed_at: string | null
}

export interface TicketMessageView {
  id: string
  message: string
  author: PersonView
  from_support: boolean
  created_at: string
}

export interface TicketDetailView extends TicketSummaryView {
  description: string
  messages: TicketMessageView[]
}

/** `ticket.createdBy` must be populated (or null). */
export function toTicketSummary (ticket: Ticket, messageCount: number): TicketSummaryView {
  const creator = ticket.createdBy
  return {
    id: ticket.id,
    subject: ticket.subject,
    priority: ticket.priority,
    status: ticket.status,
    message_count: messageCount,
    created_by: creator === null || creator === undefined ? null : { id: creator.id, name: creator.name },
    created_at: ticket.createdAt.toISOString(),
    updated_at: ticket.updatedAt.toISOString(),
    last_message_at: ticket.lastMessageAt.toISOString(),
    closed_at: ticket.closedAt?.toISOString() ?? null
  }
}

export function toMessageView (message: TicketMessage): TicketMessageView {
  return {
    id: message.id,
    message: message.message,
    // The name is the one written at the time: staff have no user row, and users may be renamed or removed.
    author: { id: message.author?.id ?? null, name: message.authorName },
    from_support: message.fromSupport,
    created_at: message.createdAt.toISOString()
  }
}

export function toTicketDetail (ticket: Ticket, messages: TicketMessage[]): TicketDetailView {
  return { ...toTicketSummary(ticket, messages.length), description: ticket.description, messages: messages.map(toMessageView) }
}
