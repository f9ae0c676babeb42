/** What GET /metrics, get_instance_metrics and the history answer. Units: cpu cores, memory and storage MB. */
import { HISTORY_COLUMNS, type HistoryColumnsRow } from './metrics.queries.ts'

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

const DAY_SECONDS = 86_400
const two = (n: number): string => n < 10 ? `0${n}` : String(n)

/**
 * Whole-second epochs (ascending) as ISO 8601 in UTC, as `Date#toISOString` writes them. The date
 * part is formatted once per day: a week of hourly buckets costs 7 date conversions, not 168.
 */
export function isoTimes (epochs: string[]): string[] {
  let day = Number.NaN
  let datePart = ''
  return epochs.map((text) => {
    const epoch = Number(text)
    const today = Math.floor(epoch / DAY_SECONDS)
    if (today !== day) {
      day = today
      datePart = new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 11)
    }
    const second = epoch - day * DAY_SECONDS
    return `${datePart}${two(Math.floor(second / 3600))}:${two(Math.floor(second / 60) % 60)}:${two(second % 60)}.000Z`
  })
}

/** Epoch-second items as the JSON array items of their ISO 8601 times (null for none). */
export function isoTimeItems (epochs: string | null): string | null {
  return epochs === null || epochs === '' ? null : `"${isoTimes(epochs.split(',')).join('","')}"`
}

/** The history of one instance: the range asked and its columns as the statement rendered them (METRICS_HISTORY). */
export interface HistoryAnswer {
  instance_id: number
  from: string
  to: string
  step: string
  step_seconds: number
  columns: HistoryColumnsRow
  /** The buckets' start times as JSON array items (isoTimeItems of `columns.epochs`). */
  time: string | null
}

/**
 * The 200 answer of the history route as JSON text, written from the statement's rendered
 * columns: bucket starts as ISO 8601, the numbers as the database rounded them.
 */
export function historyResponseJson (answer: HistoryAnswer): string {
  const { columns } = answer
  const time = answer.time ?? ''
  const series = HISTORY_COLUMNS.map((name) => `,"${name}":[${columns[name] ?? ''}]`).join('')
  return `{"success":true,"instance_id":${answer.instance_id},"from":"${answer.from}","to":"${answer.to}",` +
    `"step":${JSON.stringify(answer.step)},"step_seconds":${answer.step_seconds},"series":{"time":[${time}]${series}}}`
}
