import type { AppConfig } from '../../../config/env.ts'
import { defineQueue } from '../../../lib/job-queue.ts'
import { DEFAULT_TUNING, mailQueueOptions, type DeliveryJob, type DispatcherTuning } from './mail-dispatcher.job.ts'

/** The dispatcher's tuning under the configuration (MAIL_MAX_ATTEMPTS, MAIL_RETRY_SECONDS; the rest at its defaults). */
export function mailTuning (config: AppConfig): DispatcherTuning {
  return { ...DEFAULT_TUNING, maxAttempts: config.MAIL_MAX_ATTEMPTS, retryBaseMs: config.MAIL_RETRY_SECONDS * 1000 }
}

/**
 * Outgoing mail: one job per outbox row, with the row's id as the job's id. Its retries follow
 * the dispatcher's own tuning (mailQueueOptions) rather than a preset.
 */
export const MAIL_QUEUE = defineQueue<DeliveryJob['data']>('mail-delivery', (config) => mailQueueOptions(mailTuning(config), config.JOB_HEARTBEAT_SECONDS))
