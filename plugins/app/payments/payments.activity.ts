/** The activity types the payments room records, each with what it means (docs/company.md lists them all). */
export const PAYMENTS_ACTIVITY = {
  'payment.received': 'The payment provider confirmed a payment and it was applied',
  'payment.failed': 'A payment was reported but not applied; the title says why'
} as const satisfies Record<`payment.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const PAYMENTS_ACTIVITY_TARGETS = {
  payment: 'A payment; `target_id` is its uuid'
} as const
