import { defineQueue } from '../../../lib/job-queue.ts'

export interface AddonSyncJobData {
  sourceId: number
  tenantId: string
}

/** Syncs of an addon source's repository into the addon storage, one job per requested sync. */
export const ADDON_SYNC_QUEUE = defineQueue<AddonSyncJobData>('addon-source-sync', (config) => ({
  preset: 'long',
  retryLimit: config.ADDON_SOURCE_SYNC_RETRIES,
  expireInSeconds: config.ADDON_SOURCE_SYNC_TIMEOUT_SECONDS + 120
}))
