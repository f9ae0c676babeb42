import { defineQueue } from '../../../lib/job-queue.ts'
import type { UserRole } from '../users/user.entity.ts'

export interface ErpUserJobData {
  tenantId: string
  instanceId: number
  email: string
  name: string
  role: UserRole
}

/** Creates a person's user in an instance's ERP: a member invited to it, or an invitation once accepted. */
export const ERP_USER_QUEUE = defineQueue<ErpUserJobData>('erp-users', (config) => ({
  preset: 'patient',
  retryLimit: config.ERP_USER_JOB_RETRIES,
  expireInSeconds: 600
}))
