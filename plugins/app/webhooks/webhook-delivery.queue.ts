import type { AppConfig } from '../../../config/env.ts'
import { defineQueue } from '../../../lib/job-queue.ts'

const RETRY_CAP_SECONDS = 3600

/**
 * Retries of one delivery: a failed attempt waits WEBHOOK_RETRY_SECONDS, doubled each time
 * (plus pg-boss's jitter) up to an hour, for as many attempts as fit in WEBHOOK_RETRY_HOURS.
 * The job also stops at the row's `retry_until`, whichever comes first.
 */
export function webhookRetryLimit (baseSeconds: number, hours: number): number {
  let waited = 0
  let retries = 0
  while (retries < 200) {
    const next = Math.min(RETRY_CAP_SECONDS, baseSeconds * 2 ** retries)
    if (waited + next > hours * 3600) break
    waited += next
    retries++
  }
  return retries
}

/** One job per delivery row, with the row's id as the job's id. */
export const WEBHOOK_DELIVERY_QUEUE = defineQueue<{ id: string }>('webhook-delivery', (config: AppConfig) => ({
  retryLimit: webhookRetryLimit(config.WEBHOOK_RETRY_SECONDS, config.WEBHOOK_RETRY_HOURS),
  retryDelay: config.WEBHOOK_RETRY_SECONDS,
  retryBackoff: true,
  retryDelayMax: RETRY_CAP_SECONDS,
  expireInSeconds: config.WEBHOOK_TIMEOUT_SECONDS + 60,
  heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS
}))
