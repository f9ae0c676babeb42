/** The activity types the auth room records, each with what it means (docs/company.md lists them all). */
export const AUTH_ACTIVITY = {
  'session.revoked': 'A person signed one of their sessions out',
  'session.others_revoked': 'A person signed out all their sessions but the current one',
  'session.all_revoked': 'An administrator signed a member out of every session'
} as const satisfies Record<`session.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const AUTH_ACTIVITY_TARGETS = {
  session: 'A portal session; `target_id` is its uuid'
} as const
