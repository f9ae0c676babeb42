import { defineQueue } from '../../../lib/job-queue.ts'

export interface PasswordResetRequestData {
  /** Normalized; the job finds out whether it has an account. */
  email: string
}

/**
 * A "forgot password" request. The route only queues this job, whatever the
 * address: its answer and its time say nothing about whether an account exists.
 */
export const PASSWORD_RESET_QUEUE = defineQueue<PasswordResetRequestData>('password-reset-requests', () => ({
  preset: 'quick',
  retryLimit: 3,
  expireInSeconds: 60
}))
