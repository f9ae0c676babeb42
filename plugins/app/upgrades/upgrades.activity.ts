/** The activity types the upgrades room records, each with what it means (docs/company.md lists them all). */
export const UPGRADES_ACTIVITY = {
  'instance.upgrade_requested': 'A version upgrade of an instance was requested (test on a staging copy, or apply)',
  'instance.upgraded': 'A version upgrade succeeded: the instance (or its test copy) runs the new ERP version',
  'instance.upgrade_failed': 'A version upgrade failed; the title carries the reason',
  'instance.upgrade_rolled_back': 'A failed version upgrade was rolled back: the instance runs its old version on the data of its rollback point'
} as const satisfies Record<`instance.${string}`, string>

/** What the room's records point at. */
export const UPGRADES_ACTIVITY_TARGETS = {
  upgrade: 'A version upgrade; `target_id` is its integer id in decimal'
} as const
