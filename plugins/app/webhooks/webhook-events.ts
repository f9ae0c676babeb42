import type { ActivityType } from '../activity/activity-types.ts'

/**
 * The webhook event types, each with what it means (docs/webhooks.md lists them), and the
 * activity type that reports each: an event is written by the activity recorder, in the
 * transaction of the change, whenever one of these activities is.
 */
export const WEBHOOK_EVENTS = {
  'instance.running': { activity: 'instance.running', description: 'An instance is running (after create, start, restart or restore)' },
  'instance.stopped': { activity: 'instance.stopped', description: 'An instance stopped' },
  'instance.error': { activity: 'instance.error', description: 'An instance failed' },
  'instance.deleted': { activity: 'instance.deleted', description: 'An instance was deleted' },
  'backup.completed': { activity: 'backup.completed', description: 'A backup finished and its archive is stored' },
  'backup.failed': { activity: 'backup.failed', description: 'A backup could not be made' },
  'restore.completed': { activity: 'backup.restored', description: 'An instance was restored from a backup, or made from one' },
  'restore.failed': { activity: 'backup.restore_failed', description: 'A restore from a backup failed' },
  'module.installed': { activity: 'instance_module.installed', description: 'An ERP module was installed on an instance' },
  'module.failed': { activity: 'instance_module.failed', description: 'An ERP module could not be installed on an instance' },
  'addon_source.synced': { activity: 'addon_source.synced', description: 'An addon source was fetched: its commit and modules are known' },
  'addon_source.sync_failed': { activity: 'addon_source.sync_failed', description: 'A sync of an addon source failed' },
  'invitation.accepted': { activity: 'invitation.accepted', description: 'An invitation was accepted: the newcomer is a user' },
  'subscription.activated': { activity: 'subscription.activated', description: 'A subscription became active' },
  'subscription.renewed': { activity: 'subscription.renewed', description: 'An active subscription was paid for a new period' },
  'subscription.ended': { activity: 'subscription.trial_expired', description: 'The subscription ended (the free trial expired)' },
  'ticket.support_replied': { activity: 'ticket.support_replied', description: 'Support replied to a ticket' }
} as const satisfies Record<string, { activity: ActivityType, description: string }>

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[]

/** `ping`: sent by `POST /api/webhooks/{id}/test` only, whatever the endpoint subscribed to. */
export const PING_EVENT = 'ping'

const byActivity = new Map<string, WebhookEventType>(WEBHOOK_EVENT_TYPES.map((type) => [WEBHOOK_EVENTS[type].activity, type]))

/** The webhook event an activity type reports, if any. */
export function webhookEventOf (activity: string): WebhookEventType | undefined {
  return byActivity.get(activity)
}
