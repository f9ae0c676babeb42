/**
 * The history query (`from`, `to`, `step`) checked and resolved: defaults, the step in seconds,
 * and the point budget. Pure, so the arithmetic is tested on its own.
 */
import { MetricsRangeInvalid, MetricsTooManyPoints } from './metrics.errors.ts'

export const MAX_POINTS = 1000
export const DEFAULT_STEP = '5m'
export const DEFAULT_SPAN_MS = 24 * 3600 * 1000
/** `30s`, `5m`, `1h`, `1d`: a whole number and a unit. */
export const STEP_PATTERN = '^[1-9][0-9]{0,6}[smhd]$'

/** date_bin's origin in the history statement: buckets start at multiples of the step from here. */
export const BUCKET_ORIGIN_MS = Date.UTC(2000, 0, 1)

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 }
/** Steps offered when a range needs a wider one. */
const NICE_STEPS = ['1m', '5m', '15m', '30m', '1h', '3h', '6h', '12h', '1d', '7d', '30d']

export function stepSeconds (step: string): number {
  const match = /^([1-9]\d*)([smhd])$/.exec(step)
  if (match === null) throw MetricsRangeInvalid(`step must be a whole number and a unit (s, m, h, d), e.g. 5m, not ${JSON.stringify(step)}`, { field: 'step' })
  return Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number)
}

export interface HistoryRange {
  from: Date
  to: Date
  step: string
  stepSeconds: number
  /** Buckets are whole hours (1h, 2h, 1d…): served from the hourly roll-ups. */
  wholeHours: boolean
}

/** How many buckets of `seconds` the range [from, to) touches, its partial first and last ones included. */
export function bucketCount (from: Date, to: Date, seconds: number): number {
  return Math.floor(bucketsFromOrigin(to.getTime() - 1, seconds)) - Math.floor(bucketsFromOrigin(from.getTime(), seconds)) + 1
}

/** The first bucket boundary at or after the range's `from`: the buckets from here on are whole. */
export function firstWholeBucket (range: Pick<HistoryRange, 'from' | 'stepSeconds'>): number {
  return BUCKET_ORIGIN_MS + Math.ceil(bucketsFromOrigin(range.from.getTime(), range.stepSeconds)) * range.stepSeconds * 1000
}

/** How many `seconds`-wide buckets lie between date_bin's origin and the instant `ms` (a fraction inside one). */
const bucketsFromOrigin = (ms: number, seconds: number): number => (ms - BUCKET_ORIGIN_MS) / (seconds * 1000)

/** The narrowest step that keeps `spanMs` within MAX_POINTS, as one of the usual steps when one fits. */
export function allowedStep (spanMs: number): { seconds: number, step: string } {
  // One bucket more than the span needs, for a range that does not start on a bucket boundary.
  const seconds = Math.ceil(spanMs / 1000 / (MAX_POINTS - 1))
  const nice = NICE_STEPS.find((s) => stepSeconds(s) >= seconds)
  return { seconds, step: nice ?? `${Math.ceil(seconds / 86_400)}d` }
}

export function resolveRange (query: { from?: string, to?: string, step?: string }, now: Date): HistoryRange {
  const to = query.to === undefined ? now : new Date(query.to)
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_SPAN_MS) : new Date(query.from)
  if (Number.isNaN(to.getTime())) throw MetricsRangeInvalid('to must be an ISO 8601 date-time', { field: 'to' })
  if (Number.isNaN(from.getTime())) throw MetricsRangeInvalid('from must be an ISO 8601 date-time', { field: 'from' })
  if (from.getTime() >= to.getTime()) throw MetricsRangeInvalid('from must be before to', { field: 'from' })
  const step = query.step ?? DEFAULT_STEP
  const seconds = stepSeconds(step)
  const spanMs = to.getTime() - from.getTime()
  const points = bucketCount(from, to, seconds)
  if (points > MAX_POINTS) {
    const allowed = allowedStep(spanMs)
    throw MetricsTooManyPoints(`step=${step} gives ${points} points over this range; at most ${MAX_POINTS} are answered: use step=${allowed.step} or wider (at least ${allowed.seconds} s)`, {
      field: 'step', points, max_points: MAX_POINTS, min_step_seconds: allowed.seconds, allowed_step: allowed.step
    })
  }
  return { from, to, step, stepSeconds: seconds, wholeHours: seconds % 3600 === 0 }
}
