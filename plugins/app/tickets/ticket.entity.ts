import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt, uuidPrimaryKey } from '../../../database/columns.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export const TICKET_STATUSES = ['open', 'answered', 'closed'] as const
export type TicketPriority = typeof TICKET_PRIORITIES[number]
export type TicketStatus = typeof TICKET_STATUSES[number]

const TicketSchema = defineEntity({
  name: 'Ticket',
  tableName: 'tickets',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    subject: p.string().length(200),
    description: p.text(),
    priority: p.enum(TICKET_PRIORITIES).default('normal'),
    status: p.enum(TICKET_STATUSES).default('open'),
    createdBy: () => p.manyToOne(User).nullable(),
    lastMessageAt: timestamp(),
    closedAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  indexes: [
    { properties: ['tenant', 'status', 'lastMessageAt'] }
  ]
})

export class Ticket extends TicketSchema.class {}
TicketSchema.setClass(Ticket)

/** One message of a ticket's thread: from the customer (a portal user) or from support staff. */
const TicketMessageSchema = defineEntity({
  name: 'TicketMessage',
  tableName: 'ticket_messages',
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(Tenant),
    ticket: () => p.manyToOne(Ticket).index(),
    /** The portal user who wrote it; null for support staff, who are not portal users. */
    author: () => p.manyToOne(User).nullable(),
    authorName: p.string().length(200),
    fromSupport: p.boolean().default(false),
    message: p.text(),
    createdAt: createdAt()
  }
})

export class TicketMessage extends TicketMessageSchema.class {}
TicketMessageSchema.setClass(TicketMessage)
