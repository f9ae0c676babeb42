/** The activity types the invitations room records, each with what it means (docs/company.md lists them all). */
export const INVITATIONS_ACTIVITY = {
  'invitation.created': 'Someone was invited to join the company',
  'invitation.resent': 'An invitation\'s e-mail was sent again',
  'invitation.cancelled': 'An invitation was cancelled',
  'invitation.accepted': 'An invitation was accepted: the newcomer is a user (the target)'
} as const satisfies Record<`invitation.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const INVITATIONS_ACTIVITY_TARGETS = {
  invitation: 'An invitation; `target_id` is its uuid'
} as const
