/**
 * The activity types the instances room records, each with what it means
 * (docs/company.md lists them all): `instance.created`, then one type per
 * state an instance moves to (`instance.<state>`).
 */
export const INSTANCES_ACTIVITY = {
  'instance.created': 'An instance was created; it starts in provisioning',
  'instance.provisioning': 'An instance moved to provisioning (a new one records instance.created instead)',
  'instance.running': 'An instance is running',
  'instance.starting': 'An instance is starting',
  'instance.stopping': 'An instance is stopping',
  'instance.stopped': 'An instance is stopped',
  'instance.restarting': 'An instance is restarting',
  'instance.error': 'An instance failed; the title carries the reason',
  'instance.deleting': 'An instance is being deleted',
  'instance.deleted': 'An instance was deleted',
  'instance.restoring': 'An instance is being restored from a backup',
  'instance.upgrading': 'An instance is being upgraded to a new ERP version'
} as const satisfies Record<`instance.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const INSTANCES_ACTIVITY_TARGETS = {
  instance: 'An instance; `target_id` is its integer id in decimal'
} as const
