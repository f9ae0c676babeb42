/** The activity types the backups room records, each with what it means (docs/company.md lists them all). */
export const BACKUPS_ACTIVITY = {
  'backup.requested': 'A backup of an instance was requested (by a person, an agent or the daily schedule)',
  'backup.completed': 'A backup finished and its archive is stored',
  'backup.failed': 'A backup could not be made',
  'backup.deleted': 'A backup and its archive were deleted',
  'backup.download_link_created': 'A one-time download link for a backup was made',
  'backup.restore_requested': 'A restore from a backup was requested, onto its instance or as a new instance',
  'backup.restored': 'An instance was restored from a backup, or made from one',
  'backup.restore_failed': 'A restore from a backup failed',
  'backup.schedule_updated': 'An instance\'s daily backup schedule was changed or turned off'
} as const satisfies Record<`backup.${string}`, string>

/** What the room's records point at (`target_type`), with what `target_id` holds. */
export const BACKUPS_ACTIVITY_TARGETS = {
  backup: 'A backup; `target_id` is its integer id'
} as const
