/** The activity types the webhooks room records, each with what it means (docs/company.md lists them all). */
export const WEBHOOKS_ACTIVITY = {
  'webhook.created': 'A webhook endpoint was added',
  'webhook.updated': 'A webhook endpoint was changed (address, events, description or enabled)',
  'webhook.deleted': 'A webhook endpoint was deleted',
  'webhook.secret_rotated': 'A webhook endpoint got a new signing secret',
  'webhook.disabled': 'The service disabled a webhook endpoint that failed for days'
} as const satisfies Record<`webhook.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const WEBHOOKS_ACTIVITY_TARGETS = {
  webhook: 'A webhook endpoint; `target_id` is its uuid'
} as const
