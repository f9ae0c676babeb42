/** The activity types the users room records, each with what it means (docs/company.md lists them all). */
export const USERS_ACTIVITY = {
  'user.created': 'A user was added to the company',
  'user.deactivated': 'A user was deactivated',
  'user.role_changed': 'A user became an administrator, or a plain user again'
} as const satisfies Record<`user.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const USERS_ACTIVITY_TARGETS = {
  user: 'A user; `target_id` is their uuid'
} as const
