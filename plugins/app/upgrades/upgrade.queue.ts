import { defineQueue } from '../../../lib/job-queue.ts'

/** One version upgrade (docs/upgrades.md); `instanceId` is the instance the job holds `upgrading` (the copy in a test). */
export interface UpgradeJobData {
  upgradeId: number
  tenantId: string
  instanceId: number
}

/**
 * Upgrades: the job waits for its backup or copy by sending itself again, and catches its own
 * failures (they roll back); a retry after a crash mid-upgrade rolls back too.
 */
export const UPGRADE_QUEUE = defineQueue<UpgradeJobData>('instance-upgrades', (config) => ({
  preset: 'long',
  retryLimit: config.BACKUP_JOB_RETRIES,
  expireInSeconds: config.ERP_UPGRADE_TIMEOUT_SECONDS + 3600
}))
