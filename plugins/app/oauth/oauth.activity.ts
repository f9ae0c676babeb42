/** The activity types the oauth room records, each with what it means (docs/company.md lists them all). */
export const OAUTH_ACTIVITY = {
  'oauth.grant_created': 'A person connected an agent (allowed an OAuth client to act for them)',
  'oauth.grant_revoked': 'A person disconnected an agent: its grant and tokens are gone',
  'oauth.grant_access_changed': 'A person changed what a connected agent may do: its level (read only, operate, administer) or its instances'
} as const satisfies Record<`oauth.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const OAUTH_ACTIVITY_TARGETS = {
  oauth_grant: 'An agent\'s grant; `target_id` is the grant id'
} as const
