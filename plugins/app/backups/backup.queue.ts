import { defineQueue } from '../../../lib/job-queue.ts'

/** A backup of an instance into a recorded backup row. */
export interface BackupJobData {
  action: 'backup'
  backupId: number
  tenantId: string
}

/** A restore of a backup, in place or into a new instance. */
export interface RestoreJobData {
  action: 'restore'
  backupId: number
  tenantId: string
  /** The instance being restored (what the abandoned-jobs supervisor looks for). */
  instanceId: number
  /** A restore into another instance than the backup's: a new one (made from the backup), or a staging copy being refreshed. */
  targetInstanceId?: number
  /**
   * A staging copy (docs/staging.md): `create` makes it (like a restore as a new instance),
   * `refresh` loads its production instance's backup over it. Either way the backup may still be
   * under way (the job waits for it), and the ERP's neutralization runs before the copy starts.
   */
  staging?: 'create' | 'refresh'
}

export type BackupQueueData = BackupJobData | RestoreJobData

/** Backups and restores, one job each; an attempt may move a whole database and its files. */
export const BACKUP_QUEUE = defineQueue<BackupQueueData>('instance-backups', (config) => ({
  preset: 'long',
  retryLimit: config.BACKUP_JOB_RETRIES,
  expireInSeconds: 6 * 3600
}))
