import { Type } from 'typebox'
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../plugins/app/tickets/ticket.entity.ts'
import { LIMITS } from '../plugins/app/tickets/ticket-rules.ts'
import { Id, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

// `enum` (not a union of literals) so that a wrong value's error lists the allowed ones.
export const TicketPriority = Type.Enum(TICKET_PRIORITIES, { description: 'low, normal, high or urgent' })
export const TicketStatus = Type.Enum(TICKET_STATUSES, { description: 'open (waiting for support), answered (support replied) or closed' })

const trimmed = 'Leading and trailing whitespace is removed before the length is checked.'
const Subject = Type.String({ minLength: LIMITS.subject.min, maxLength: LIMITS.subject.max, description: `${LIMITS.subject.min}-${LIMITS.subject.max} characters. ${trimmed}` })
const Text = Type.String({ minLength: LIMITS.text.min, maxLength: LIMITS.text.max, description: `${LIMITS.text.min}-${LIMITS.text.max} characters. ${trimmed}` })
const DateTime = Type.String({ format: 'date-time' })
const PageQuery = Pagination.properties

export const ListTicketsQuery = Type.Object({
  status: Type.Optional(TicketStatus),
  priority: Type.Optional(TicketPriority),
  ...PageQuery
}, { additionalProperties: false })

export const CreateTicketBody = Type.Object({
  subject: Subject,
  description: Text,
  priority: Type.Optional(Type.Enum(TICKET_PRIORITIES, { default: 'normal', description: 'low, normal (default), high or urgent' }))
}, { additionalProperties: false })

export const ReplyBody = Type.Object({ message: Text }, { additionalProperties: false })

const Person = Type.Object({
  id: Type.Union([Id, Type.Null()], { description: 'The portal user; null for support staff' }),
  name: Type.String()
})

export const TicketMessage = Type.Object({
  id: Id,
  message: Type.String(),
  author: Person,
  from_support: Type.Boolean({ description: 'true when written by support staff' }),
  created_at: DateTime
}, { $id: 'TicketMessage' })

const summaryProperties = {
  id: Id,
  subject: Type.String(),
  priority: TicketPriority,
  status: TicketStatus,
  message_count: Int4({ description: 'Messages in the thread, the opening description included' }),
  created_by: Type.Union([Person, Type.Null()], { description: 'Who opened it; null once that user is deleted' }),
  created_at: DateTime,
  updated_at: DateTime,
  last_message_at: DateTime,
  closed_at: Type.Union([DateTime, Type.Null()])
}

export const TicketSummary = Type.Object(summaryProperties, { $id: 'Ticket' })

export const TicketDetail = Type.Object({
  ...summaryProperties,
  description: Type.String({ description: 'The opening text; also the first message of the thread' }),
  messages: Type.Array(ref(TicketMessage), { description: 'The whole thread, oldest first, starting with the description' })
}, { $id: 'TicketDetail' })

export const TicketListResponse = Success({ tickets: Type.Array(ref(TicketSummary)), pagination: ref(PageInfo) }, { $id: 'TicketListResponse' })
export const TicketResponse = Success({ ticket: ref(TicketDetail) }, { $id: 'TicketResponse' })

// Operator (support staff) routes under /api/support.

export const SupportTokenHeaders = Type.Object({
  'x-support-token': Type.String({ description: 'The value of SUPPORT_API_TOKEN' })
})

const StaffName = Type.String({ minLength: LIMITS.staffName.min, maxLength: LIMITS.staffName.max, pattern: '^[^\\u0000-\\u001f\\u007f]*$', 'x-pattern-message': 'must be one line without control characters', description: 'The staff member, shown to the customer as the author; one line' })

export const TenantRef = Type.Object({ id: Id, subdomain: Type.String(), name: Type.String() }, { $id: 'TenantRef' })

export const SupportQueueQuery = Type.Object({
  status: Type.Optional(TicketStatus),
  priority: Type.Optional(TicketPriority),
  tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Only this tenant (subdomain)' })),
  ...PageQuery
}, { additionalProperties: false })

export const SupportQueueResponse = Success({
  tickets: Type.Array(Type.Object({ ...summaryProperties, tenant: ref(TenantRef) })),
  pagination: ref(PageInfo)
}, { $id: 'SupportQueueResponse' })

export const SupportTicketResponse = Success({ tenant: ref(TenantRef), ticket: ref(TicketDetail) }, { $id: 'SupportTicketResponse' })

export const SupportReplyBody = Type.Object({ staff_name: StaffName, message: Text }, { additionalProperties: false })
export const SupportCloseBody = Type.Object({ staff_name: StaffName }, { additionalProperties: false })
