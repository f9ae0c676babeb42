/** The activity types the tickets room records, each with what it means (docs/company.md lists them all). */
export const TICKETS_ACTIVITY = {
  'ticket.created': 'A support ticket was opened',
  'ticket.replied': 'Someone in the company replied to a ticket',
  'ticket.support_replied': 'Support replied to a ticket',
  'ticket.reopened': 'A reply reopened a closed ticket',
  'ticket.closed': 'A ticket was closed'
} as const satisfies Record<`ticket.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const TICKETS_ACTIVITY_TARGETS = {
  ticket: 'A support ticket; `target_id` is its uuid'
} as const
