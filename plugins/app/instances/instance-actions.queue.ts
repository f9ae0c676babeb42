import { defineQueue } from '../../../lib/job-queue.ts'
import type { InstanceAction } from './instance-states.ts'

export interface InstanceJobData {
  instanceId: number
  tenantId: string
  action: InstanceAction
}

/** Lifecycle actions on an instance's backend (provision, start, stop, restart, delete), one job each. */
export const INSTANCE_QUEUE = defineQueue<InstanceJobData>('instance-actions', (config) => ({
  preset: 'quick',
  retryLimit: config.INSTANCE_JOB_RETRIES,
  // A stop may take its grace period before the wait for the target state begins.
  expireInSeconds: config.INSTANCE_READY_TIMEOUT_SECONDS + config.INSTANCE_STOP_GRACE_SECONDS + 600
}))
