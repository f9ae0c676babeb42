/** The kept settled part of history answers: slicing and joining rendered items, expiry, eviction. */
import t from 'tap'
import fc from 'fast-check'
import { countBefore, createSettledHistory, joinColumns, joinItems, sliceColumns, sliceItems } from '../../../../plugins/app/metrics/settled-history.ts'
import type { HistoryColumnsRow } from '../../../../plugins/app/metrics/metrics.queries.ts'

// What the statement renders: numbers, `null`, `0`; never a comma inside an item.
const item = fc.oneof(fc.constant('null'), fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(Math.round(n * 1000) / 1000)))
const rendered = (items: string[]): string | null => items.length === 0 ? null : items.join(',')

t.test('a slice of rendered items is the slice of the items; slices joined are the whole', async (t) => {
  fc.assert(fc.property(fc.array(item, { maxLength: 200 }), fc.nat({ max: 220 }), fc.nat({ max: 220 }), (items, a, b) => {
    const [start, end] = a <= b ? [a, b] : [b, a]
    const whole = rendered(items)
    return sliceItems(whole, start, end) === rendered(items.slice(start, end)) &&
      sliceItems(whole, start) === rendered(items.slice(start)) &&
      joinItems(sliceItems(whole, 0, start), sliceItems(whole, start, end), sliceItems(whole, end)) === whole
  }), { numRuns: 1000 })
  t.equal(sliceItems('1,2,3', 1, 1), null, 'none')
  t.equal(sliceItems(null, 0, 3), null, 'no buckets')
  t.equal(joinItems('', '4', null), '4')
})

t.test('countBefore counts the ascending epochs before a moment', async (t) => {
  fc.assert(fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 2_000_000_000 }), { maxLength: 200 }), fc.integer({ min: 0, max: 2_000_000_001 }), (values, at) => {
    const epochs = [...values].sort((x, y) => x - y)
    return countBefore(rendered(epochs.map(String)), at) === epochs.filter((epoch) => epoch < at).length
  }), { numRuns: 1000 })
})

t.test('columns are sliced and joined together, each at the same bucket', async (t) => {
  const row = (epochs: string | null, cpu: string | null): HistoryColumnsRow => ({
    epochs, samples: epochs, cpu_avg: cpu, cpu_max: cpu, memory_avg: cpu, memory_max: cpu, database_avg: cpu, database_max: cpu, volume_avg: cpu, volume_max: null
  })
  const whole = row('10,20,30', '0.1,0.2,0.3')
  t.same(sliceColumns(whole, 0, 2), row('10,20', '0.1,0.2'))
  t.same(sliceColumns(whole, 2), row('30', '0.3'))
  t.same(joinColumns(sliceColumns(whole, 0, 1), sliceColumns(whole, 1, 2), sliceColumns(whole, 2)), whole)
})

t.test('a kept part serves answers whose whole buckets start within it; entries expire and the oldest go first', async (t) => {
  let clock = 0
  const cache = createSettledHistory({ maxEntries: 2, ttlMs: 1000, now: () => clock })
  const part = (startMs: number, untilMs: number) => ({ startMs, untilMs, columns: { epochs: '1' } as HistoryColumnsRow, time: null, bornAt: clock })
  cache.set('a', part(1000, 5000))
  t.equal(cache.get('a', 1000, 5000)?.untilMs, 5000)
  t.equal(cache.get('a', 3000, 9000)?.untilMs, 5000, 'a range starting later, within the part')
  t.equal(cache.get('a', 0, 9000), undefined, 'a range starting before the part: its first buckets are not kept')
  t.equal(cache.get('a', 5000, 9000), undefined, 'a range starting after the part')
  t.equal(cache.get('a', 1000, 4999), undefined, 'a range ending inside the part')
  t.equal(cache.get('a', 1000, 6000)?.untilMs, 5000, '…and the entry is still there for one that can')
  clock = 1001
  t.equal(cache.get('a', 1000, 6000), undefined, 'expired')
  t.equal(cache.size, 0, 'and dropped')
  cache.set('b', part(0, 1))
  cache.set('c', part(0, 1))
  cache.set('b', part(0, 2)) // refreshed: now the newest
  cache.set('d', part(0, 1))
  t.same([cache.get('b', 0, 9)?.untilMs, cache.get('c', 0, 9), cache.get('d', 0, 9)?.untilMs], [2, undefined, 1], 'c was the oldest')
})
