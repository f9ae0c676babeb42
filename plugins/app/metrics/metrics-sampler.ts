/**
 * The sampler pass (a pg-boss periodic job, METRICS_INTERVAL_SECONDS): one reading per running
 * instance that has none younger than half the interval, so a second pass in the same interval
 * (another replica, a manual run) records nothing twice. Each backend has its own pool of
 * METRICS_CONCURRENCY readings at a time: a slow backend holds up only its own instances.
 */
import type { FastifyBaseLogger } from 'fastify'
import { eachLimited } from '../../../lib/each-limited.ts'
import type { Sql } from '../../../lib/sql.ts'
import { DUE_INSTANCES, type DueInstanceRow } from './metrics.queries.ts'
import type { UsageReader } from './usage-reading.ts'

export const METRICS_SAMPLER_JOB = 'metrics-sampler'
/** Longer than a request's wait: a pass may take its time, it answers nobody. */
const SAMPLER_TIMEOUT_MS = 10_000

export interface SamplerResult {
  sampled: number
  failed: number
}

export function createMetricsSampler (deps: {
  sql: Sql
  reader: UsageReader
  intervalSeconds: number
  concurrency: number
  timeoutMs?: number
  log: Pick<FastifyBaseLogger, 'warn'>
}) {
  const timeoutMs = deps.timeoutMs ?? SAMPLER_TIMEOUT_MS
  return async function samplePass (): Promise<SamplerResult> {
    const due = await deps.sql<DueInstanceRow>({ text: DUE_INSTANCES, values: [deps.intervalSeconds / 2] })
    const result: SamplerResult = { sampled: 0, failed: 0 }
    if (due.length === 0) return result
    const sizes = await deps.reader.databaseSizes(due.map((row) => row.uid), timeoutMs)
    const byBackend = Map.groupBy(due, (row) => row.backend)
    await Promise.all([...byBackend.values()].map(async (rows) => eachLimited(rows, deps.concurrency, async (row) => {
      try {
        const usage = await deps.reader.usage(row, true, timeoutMs)
        await deps.reader.record(row.tenant_id, row.id, { ...usage, databaseMb: sizes.get(row.uid) ?? null })
        result.sampled++
      } catch (error) {
        result.failed++
        deps.log.warn({ err: error, instance_id: row.id, backend: row.backend }, 'Instance usage not sampled this pass')
      }
    })))
    return result
  }
}
