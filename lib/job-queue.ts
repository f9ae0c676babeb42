import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata, Queue as PgBossQueue } from 'pg-boss'
import type { AppConfig } from '../config/env.ts'

/** pg-boss's settings of a queue (retries, backoff, heartbeat, expiry). */
export type QueueSettings = Omit<PgBossQueue, 'name'>

/**
 * The retry shapes, named once. A failed attempt is retried after `retryDelay` seconds, doubling
 * (with jitter) up to `retryDelayMax`; every preset beats a heartbeat every JOB_HEARTBEAT_SECONDS.
 */
export const RETRY_PRESETS = {
  /** Short lifecycle steps (start, stop, provision): retried soon, the caller is waiting. */
  quick: { retryDelay: 2, retryBackoff: true, retryDelayMax: 60 },
  /** Long transfers (backups, restores, addon source syncs). */
  long: { retryDelay: 5, retryBackoff: true, retryDelayMax: 300 },
  /** Calls into an ERP that may be busy or still starting (users, module installs). */
  patient: { retryDelay: 10, retryBackoff: true, retryDelayMax: 900 }
} as const satisfies Record<string, QueueSettings>

export type RetryPreset = keyof typeof RETRY_PRESETS

/** A queue's policy under a configuration: its preset, how many retries and how long one attempt may run. */
export interface QueuePolicy {
  preset: RetryPreset
  retryLimit: number
  expireInSeconds: number
}

/**
 * A queue: its name, the data of its jobs (type only) and its settings. Declared once, in the
 * room that owns it, with `defineQueue`; `jobs.send`, `jobs.define`, `jobs.drain` and `jobs.wake`
 * take it, so sending data of another shape to a queue does not type-check.
 */
export interface Queue<Data extends object> {
  readonly name: string
  /** The queue's pg-boss settings under `config` (resolved when the queue is defined at startup). */
  readonly settings: (config: AppConfig) => QueueSettings
  /** Never set: carries the type of the queue's job data. */
  readonly data?: Data
}

/**
 * Declares a queue. `policy` reads its numbers from the configuration: a preset with a retry
 * limit and an expiry, or (a queue with its own tuning) pg-boss settings as they are.
 */
export function defineQueue<Data extends object> (name: string, policy: (config: AppConfig) => QueuePolicy | QueueSettings): Queue<Data> {
  return {
    name,
    settings: (config) => {
      const resolved = policy(config)
      if (!('preset' in resolved)) return resolved
      const { preset, retryLimit, expireInSeconds } = resolved as QueuePolicy
      return { retryLimit, ...RETRY_PRESETS[preset], heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS, expireInSeconds }
    }
  }
}

/**
 * Settles the job by returning (its value is the job's output) and asks for a retry by throwing.
 * `log` is the job's own logger: its lines carry `job_id` and `queue`, and `instance_id` and
 * `tenant_id` when the job's data names them (`instanceId`, `tenantId`); a handler that learns its
 * instance later (a backup job) adds it with `log.child({ instance_id })`.
 */
export type JobHandler<T> = (job: JobWithMetadata<T>, log: FastifyBaseLogger) => Promise<unknown>

/** What `drain` did with one job. */
export type DrainedJob = { id: string, result: unknown } | { id: string, error: unknown }
