/**
 * The retention pass (hourly): complete hours are rolled up into metric_hours, then raw samples
 * older than METRICS_RAW_RETENTION_DAYS and roll-ups older than METRICS_HOURLY_RETENTION_DAYS
 * are deleted. Every step is repeat-safe; roll-up comes first so no hour is lost.
 */
import type { Sql } from '../../../lib/sql.ts'
import { PRUNE_HOURS, PRUNE_SAMPLES, ROLL_UP_HOURS } from './metrics.queries.ts'

export const METRICS_RETENTION_JOB = 'metrics-retention'
export const RETENTION_INTERVAL_SECONDS = 3600

export interface RetentionResult {
  hoursRolledUp: number
  samplesPruned: number
  hoursPruned: number
}

export function createMetricsRetention (deps: { sql: Sql, rawDays: number, hourlyDays: number }) {
  const count = async (text: string, values: unknown[] = []): Promise<number> =>
    (await deps.sql<{ n: number }>({ text: `WITH done AS (${text} RETURNING 1) SELECT count(*)::int AS n FROM done`, values }))[0]?.n ?? 0
  return async function retentionPass (): Promise<RetentionResult> {
    const hoursRolledUp = await count(ROLL_UP_HOURS)
    const samplesPruned = await count(PRUNE_SAMPLES, [deps.rawDays])
    const hoursPruned = await count(PRUNE_HOURS, [deps.hourlyDays])
    return { hoursRolledUp, samplesPruned, hoursPruned }
  }
}
