/** What GET /metrics, get_instance_metrics and the history answer. Units: cpu cores, memory and storage MB. */
import type { HistoryBucketRow, HistorySeries } from './metrics.queries.ts'

export interface UsageNumbers {
  cpuCores: number
  memoryMb: number
  databaseMb: number | null
  volumeMb: number | null
  volumeCapacityMb: number | null
}

export interface InstanceLimits {
  memoryMb: number
  cpuMillicores: number
  storageGb: number
}

export interface MetricsView {
  instance_id: number
  state: string
  sampled_at: string
  /** `sample`: a stored reading younger than the interval (or the last one, when stale); `live`: read now. */
  source: 'sample' | 'live'
  /** The backend could not be asked within the timeout: this is the last sample. */
  stale: boolean
  cpu: { used_cores: number, limit_cores: number, percent_of_limit: number }
  memory: { used_mb: number, limit_mb: number, percent_of_limit: number }
  storage: { database_mb: number | null, volume_mb: number | null, volume_capacity_mb: number | null, limit_mb: number }
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits
const roundOrNull = (value: number | null, digits: number): number | null => value === null ? null : round(value, digits)
const percent = (used: number, limit: number): number => limit > 0 ? round((used / limit) * 100, 1) : 0

export function toMetricsView (input: {
  id: number
  state: string
  sampledAt: string
  source: 'sample' | 'live'
  stale: boolean
  usage: UsageNumbers
  limits: InstanceLimits
}): MetricsView {
  const { usage, limits } = input
  const limitCores = limits.cpuMillicores / 1000
  return {
    instance_id: input.id,
    state: input.state,
    sampled_at: input.sampledAt,
    source: input.source,
    stale: input.stale,
    cpu: { used_cores: round(usage.cpuCores, 3), limit_cores: limitCores, percent_of_limit: percent(usage.cpuCores, limitCores) },
    memory: { used_mb: round(usage.memoryMb, 1), limit_mb: limits.memoryMb, percent_of_limit: percent(usage.memoryMb, limits.memoryMb) },
    storage: {
      database_mb: roundOrNull(usage.databaseMb, 1),
      volume_mb: roundOrNull(usage.volumeMb, 1),
      volume_capacity_mb: roundOrNull(usage.volumeCapacityMb, 1),
      limit_mb: limits.storageGb * 1024
    }
  }
}

/** The buckets as columns, oldest first: starts as ISO 8601, cores to 3 decimals, MB to 1. */
export function toHistorySeries (rows: HistoryBucketRow[]): HistorySeries {
  const series: HistorySeries = {
    time: [], samples: [], cpu_avg: [], cpu_max: [], memory_avg: [], memory_max: [],
    database_avg: [], database_max: [], volume_avg: [], volume_max: []
  }
  for (const row of rows) {
    if (row.epoch === null) continue // the one row of an empty series
    series.time.push(new Date(Number(row.epoch) * 1000).toISOString())
    series.samples.push(row.samples ?? 0)
    series.cpu_avg.push(round(row.cpu_avg ?? 0, 3))
    series.cpu_max.push(round(row.cpu_max ?? 0, 3))
    series.memory_avg.push(round(row.memory_avg ?? 0, 1))
    series.memory_max.push(round(row.memory_max ?? 0, 1))
    series.database_avg.push(roundOrNull(row.database_avg, 1))
    series.database_max.push(roundOrNull(row.database_max, 1))
    series.volume_avg.push(roundOrNull(row.volume_avg, 1))
    series.volume_max.push(roundOrNull(row.volume_max, 1))
  }
  return series
}
