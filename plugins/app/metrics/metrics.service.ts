import type { FastifyBaseLogger } from 'fastify'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { firstWholeBucket, resolveRange } from './history-range.ts'
import { MetricsUnavailable } from './metrics.errors.ts'
import { CURRENT_METRICS, METRICS_HISTORY, type CurrentMetricsRow, type HistoryColumnsRow, type HistoryRow } from './metrics.queries.ts'
import { countBefore, createSettledHistory, joinColumns, joinItems, NO_COLUMNS, sliceColumns, sliceItems, type SettledPart } from './settled-history.ts'
import { isoTimeItems, toMetricsView, type HistoryAnswer, type MetricsView, type UsageNumbers } from './metrics.view.ts'
import type { UsageReader } from './usage-reading.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

/** How long a request waits for the backend before it serves the last sample (stale) or 503. */
export const LIVE_TIMEOUT_MS = 2000
/** Settled history parts kept per process (a week at 1-hour steps is about 12 kB), and for how long. */
const SETTLED_ENTRIES = 500
const SETTLED_TTL_MS = 10 * 60_000

export interface MetricsServiceDeps {
  reader: UsageReader
  intervalSeconds: number
  timeoutMs?: number
  log: Pick<FastifyBaseLogger, 'warn'>
}

export interface HistoryQuery {
  from?: string
  to?: string
  step?: string
}

const num = (value: number | string | null): number | null => value === null ? null : Number(value)

function storedUsage (row: CurrentMetricsRow): UsageNumbers {
  return {
    cpuCores: num(row.cpu_cores) ?? 0,
    memoryMb: num(row.memory_mb) ?? 0,
    databaseMb: num(row.database_mb),
    volumeMb: num(row.volume_mb),
    volumeCapacityMb: num(row.volume_capacity_mb)
  }
}

/**
 * Instance usage now and over time, for REST, MCP and the jobs. Reads are tenant-scoped
 * statements (`read` binds the caller's tenant); another tenant's instance is not found.
 */
export function createMetricsService (deps: MetricsServiceDeps) {
  const { reader, log } = deps
  const timeoutMs = deps.timeoutMs ?? LIVE_TIMEOUT_MS
  const freshMs = deps.intervalSeconds * 1000
  const settled = createSettledHistory({ maxEntries: SETTLED_ENTRIES, ttlMs: SETTLED_TTL_MS })

  /**
   * Keeps the buckets of this answer that have settled (before `untilMs`): the kept part extended,
   * or, without one, the answer's whole buckets from `firstBucketMs` on.
   */
  function keepSettled (key: string, untilMs: number, firstBucketMs: number, kept: SettledPart | undefined, fresh: HistoryColumnsRow): void {
    const settledFrom = kept?.untilMs ?? firstBucketMs
    if (untilMs <= settledFrom) return
    const added = sliceColumns(fresh, countBefore(fresh.epochs, settledFrom / 1000), countBefore(fresh.epochs, untilMs / 1000))
    settled.set(key, {
      startMs: kept?.startMs ?? firstBucketMs,
      untilMs,
      columns: joinColumns(kept?.columns ?? NO_COLUMNS, added),
      time: joinItems(kept?.time ?? null, isoTimeItems(added.epochs)),
      bornAt: kept?.bornAt ?? settled.now()
    })
  }

  return {
    /**
     * A sample younger than the interval is served as is (`source: sample`); otherwise the
     * backend is asked (`live`, and the reading is stored). When it cannot answer in time the
     * last sample is served with `stale: true`, or METRICS_UNAVAILABLE (503) when there is none.
     * An instance that is not running uses no CPU or memory; its storage is still read.
     */
    async current ({ read }: Pick<CallScope, 'read'>, id: number): Promise<MetricsView> {
      const { actor, rows: [row] } = await read<CurrentMetricsRow>(CURRENT_METRICS, [id])
      if (row === undefined) throw InstanceNotFound()
      const running = row.state === 'running'
      const limits = { memoryMb: row.memory_limit_mb, cpuMillicores: row.cpu_millicores, storageGb: row.storage_gb }
      const view = (usage: UsageNumbers, sampledAt: string, source: 'sample' | 'live', stale: boolean): MetricsView => toMetricsView({
        id: row.id,
        state: row.state,
        sampledAt,
        source,
        stale,
        usage: running ? usage : { ...usage, cpuCores: 0, memoryMb: 0 },
        limits
      })
      if (row.sampled_at !== null && row.age_ms !== null && row.age_ms < freshMs) return view(storedUsage(row), row.sampled_at, 'sample', false)

      const sizes = reader.databaseSizes([row.uid], timeoutMs)
      let usage: Omit<UsageNumbers, 'databaseMb'>
      try {
        usage = await reader.usage(row, running, timeoutMs)
      } catch (error) {
        if (!running) {
          usage = { cpuCores: 0, memoryMb: 0, volumeMb: null, volumeCapacityMb: null } // nothing runs: only the volume is unknown
        } else {
          log.warn({ err: error, instance_id: row.id }, 'Instance usage could not be read live')
          if (row.sampled_at !== null) return view(storedUsage(row), row.sampled_at, 'sample', true)
          const reason = error instanceof Error ? error.message : String(error)
          throw MetricsUnavailable(`The instance's usage cannot be read now and no earlier sample is kept: ${reason}`, { backend: row.backend })
        }
      }
      const reading = { ...usage, databaseMb: (await sizes).get(row.uid) ?? null }
      const sampledAt = await reader.record(actor.tenantId, row.id, reading)
      return view(reading, sampledAt, 'live', false)
    },

    /**
     * The series of [from, to) averaged and maxed per step, in one statement. At whole-hour steps
     * the buckets already settled are kept per instance and step (settled-history.ts), and only
     * what lies before and after them is read again.
     */
    async history ({ read }: Pick<CallScope, 'read'>, id: number, query: HistoryQuery): Promise<HistoryAnswer> {
      const range = resolveRange(query, new Date())
      const firstBucketMs = firstWholeBucket(range)
      // Instance ids are never reused; whether this caller may read the instance is the statement's check.
      const key = `${id}|${range.stepSeconds}`
      const kept = range.wholeHours ? settled.get(key, firstBucketMs, range.to.getTime()) : undefined
      const { rows: [row] } = await read<HistoryRow>(METRICS_HISTORY, [
        id, range.from.toISOString(), range.to.toISOString(), `${range.stepSeconds} seconds`, range.wholeHours,
        kept === undefined ? 'infinity' : new Date(firstBucketMs).toISOString(),
        kept === undefined ? 'infinity' : new Date(kept.untilMs).toISOString()
      ])
      if (row === undefined) throw InstanceNotFound()
      const { settled_until: settledUntil, ...fresh } = row
      let columns: HistoryColumnsRow = fresh
      let time: string | null
      if (kept === undefined) {
        time = isoTimeItems(fresh.epochs)
      } else {
        // The fresh buckets are the partial first one (before firstBucketMs) and those after the kept part.
        const head = countBefore(fresh.epochs, firstBucketMs / 1000)
        const skipped = countBefore(kept.columns.epochs, firstBucketMs / 1000)
        const [before, after] = [sliceColumns(fresh, 0, head), sliceColumns(fresh, head)]
        columns = joinColumns(before, sliceColumns(kept.columns, skipped), after)
        time = joinItems(isoTimeItems(before.epochs), sliceItems(kept.time, skipped), isoTimeItems(after.epochs))
      }
      if (settledUntil !== null) keepSettled(key, Number(settledUntil) * 1000, firstBucketMs, kept, fresh)
      return {
        instance_id: id,
        from: range.from.toISOString(),
        to: range.to.toISOString(),
        step: range.step,
        step_seconds: range.stepSeconds,
        columns,
        time
      }
    }
  }
}

export type MetricsService = ReturnType<typeof createMetricsService>
