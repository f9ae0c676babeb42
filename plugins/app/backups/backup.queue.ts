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
  /** A restore into a new instance (made from the backup) instead of the backup's own. */
  targetInstanceId?: number
}

export type BackupQueueData = BackupJobData | RestoreJobData

/** Backups and restores, one job each; an attempt may move a whole database and its files. */
export const BACKUP_QUEUE = defineQueue<BackupQueueData>('instance-backups', (config) => ({
  preset: 'long',
  retryLimit: config.BACKUP_JOB_RETRIES,
  expireInSeconds: 6 * 3600
}))
