/**
 * The settled part of history answers, kept per process. At whole-hour steps, a bucket that ends
 * before the newest hourly roll-up is made of roll-ups alone, and roll-ups are written once: its
 * rendered items never change. A dashboard that polls the same range then costs the database only
 * the buckets since (the last hour or so), not the whole week again.
 *
 * Nothing here decides what a caller may see: the statement checks the instance and the tenant on
 * every request, cached or not. Entries expire (roll-ups older than their retention are pruned),
 * and the oldest go first beyond `maxEntries`.
 */
import { HISTORY_COLUMNS, type HistoryColumnsRow } from './metrics.queries.ts'

export interface SettledPart {
  /** Epoch ms of the boundary the settled buckets end at; the statement reads from here on. */
  untilMs: number
  columns: HistoryColumnsRow
  storedAt: number
}

const COLUMN_NAMES = ['epochs', ...HISTORY_COLUMNS] as const

/** Comma-separated JSON array items, joined: either side may be empty (null). */
export function joinItems (head: string | null, tail: string | null): string | null {
  if (head === null || head === '') return tail
  if (tail === null || tail === '') return head
  return `${head},${tail}`
}

/** The first `count` comma-separated items of `items` (all of them when it has fewer). */
export function firstItems (items: string | null, count: number): string | null {
  if (items === null || count <= 0) return null
  let at = -1
  for (let n = 0; n < count; n++) {
    at = items.indexOf(',', at + 1)
    if (at === -1) return items
  }
  return items.slice(0, at)
}

export function joinColumns (head: HistoryColumnsRow, tail: HistoryColumnsRow): HistoryColumnsRow {
  const joined = {} as HistoryColumnsRow
  for (const name of COLUMN_NAMES) joined[name] = joinItems(head[name], tail[name])
  return joined
}

export function firstColumns (columns: HistoryColumnsRow, count: number): HistoryColumnsRow {
  const first = {} as HistoryColumnsRow
  for (const name of COLUMN_NAMES) first[name] = firstItems(columns[name], count)
  return first
}

export function createSettledHistory (options: { maxEntries: number, ttlMs: number, now?: () => number }) {
  const now = options.now ?? Date.now
  const entries = new Map<string, SettledPart>()

  return {
    /** The settled part kept for `key`, when it is fresh and ends within `toMs`. */
    get (key: string, toMs: number): SettledPart | undefined {
      const part = entries.get(key)
      if (part === undefined) return undefined
      if (now() - part.storedAt > options.ttlMs) {
        entries.delete(key)
        return undefined
      }
      return part.untilMs <= toMs ? part : undefined
    },

    set (key: string, untilMs: number, columns: HistoryColumnsRow): void {
      entries.delete(key) // re-inserted last: Map order is the eviction order
      entries.set(key, { untilMs, columns, storedAt: now() })
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string)
    },

    get size (): number { return entries.size }
  }
}

export type SettledHistory = ReturnType<typeof createSettledHistory>
