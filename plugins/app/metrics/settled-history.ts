/**
 * The settled part of history answers, kept per process. At whole-hour steps, a bucket that ends
 * before the newest hourly roll-up is made of roll-ups alone, and roll-ups are written once: its
 * rendered items never change. A dashboard that polls a range (a fixed one, or "the last week"
 * moving with the clock) then costs the database only the buckets outside the kept part: the
 * partial first bucket and the last hour or so, not the whole week again.
 *
 * Nothing here decides what a caller may see: the statement checks the instance and the tenant on
 * every request, kept part or not. An entry lives `ttlMs` from when it was first read in full
 * (roll-ups older than their retention are pruned meanwhile, and growth stays bounded), and the
 * oldest entries go first beyond `maxEntries`.
 */
import { HISTORY_COLUMNS, type HistoryColumnsRow } from './metrics.queries.ts'

/** Complete, settled buckets starting in [startMs, untilMs), as rendered items. */
export interface SettledPart {
  startMs: number
  untilMs: number
  columns: HistoryColumnsRow
  /** The buckets' start times, already as ISO 8601 JSON array items. */
  time: string | null
  /** When the part was first read in full; extending it keeps this. */
  bornAt: number
}

const COLUMN_NAMES = ['epochs', ...HISTORY_COLUMNS] as const

/** Where item `index` of comma-separated `items` starts (items.length + 1 past the last). */
function itemOffset (items: string, index: number): number {
  let at = 0
  for (let n = 0; n < index; n++) {
    const comma = items.indexOf(',', at)
    if (comma === -1) return items.length + 1
    at = comma + 1
  }
  return at
}

/** Items [start, end) of comma-separated `items` (to the last one when `end` is left out); null for none. */
export function sliceItems (items: string | null, start: number, end = Number.POSITIVE_INFINITY): string | null {
  if (items === null || end <= start) return null
  const from = itemOffset(items, start)
  if (from > items.length) return null
  if (end === Number.POSITIVE_INFINITY) return items.slice(from)
  return items.slice(from, itemOffset(items, end) - 1) // up to the comma before item `end`, or the end
}

/** Comma-separated JSON array items, joined: any part may be empty (null). */
export function joinItems (...parts: Array<string | null>): string | null {
  const present = parts.filter((part): part is string => part !== null && part !== '')
  return present.length === 0 ? null : present.join(',')
}

/** How many of the ascending epoch-second items lie before `epochSeconds`. */
export function countBefore (epochs: string | null, epochSeconds: number): number {
  if (epochs === null) return 0
  let count = 0
  let at = 0
  while (at <= epochs.length) {
    const comma = epochs.indexOf(',', at)
    const end = comma === -1 ? epochs.length : comma
    if (Number(epochs.slice(at, end)) >= epochSeconds) break
    count++
    at = end + 1
  }
  return count
}

export function sliceColumns (columns: HistoryColumnsRow, start: number, end?: number): HistoryColumnsRow {
  const slice = {} as HistoryColumnsRow
  for (const name of COLUMN_NAMES) slice[name] = sliceItems(columns[name], start, end)
  return slice
}

export function joinColumns (...parts: HistoryColumnsRow[]): HistoryColumnsRow {
  const joined = {} as HistoryColumnsRow
  for (const name of COLUMN_NAMES) joined[name] = joinItems(...parts.map((part) => part[name]))
  return joined
}

export const NO_COLUMNS = Object.fromEntries(COLUMN_NAMES.map((name) => [name, null])) as HistoryColumnsRow

export function createSettledHistory (options: { maxEntries: number, ttlMs: number, now?: () => number }) {
  const now = options.now ?? Date.now
  const entries = new Map<string, SettledPart>()

  return {
    now,

    /** The part kept for `key` that an answer whose whole buckets start at `firstBucketMs` and which ends at `toMs` can use. */
    get (key: string, firstBucketMs: number, toMs: number): SettledPart | undefined {
      const part = entries.get(key)
      if (part === undefined) return undefined
      if (now() - part.bornAt > options.ttlMs) {
        entries.delete(key)
        return undefined
      }
      return part.startMs <= firstBucketMs && firstBucketMs < part.untilMs && part.untilMs <= toMs ? part : undefined
    },

    set (key: string, part: SettledPart): void {
      entries.delete(key) // re-inserted last: Map order is the eviction order
      entries.set(key, part)
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string)
    },

    get size (): number { return entries.size }
  }
}

export type SettledHistory = ReturnType<typeof createSettledHistory>
