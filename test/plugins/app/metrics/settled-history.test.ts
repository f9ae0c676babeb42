/** The kept settled part of history answers: splitting and joining rendered items, expiry, eviction. */
import t from 'tap'
import fc from 'fast-check'
import { createSettledHistory, firstColumns, firstItems, joinColumns, joinItems } from '../../../../plugins/app/metrics/settled-history.ts'
import type { HistoryColumnsRow } from '../../../../plugins/app/metrics/metrics.queries.ts'

// What the statement renders: numbers, `null`, `0`; never a comma inside an item.
const item = fc.oneof(fc.constant('null'), fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(Math.round(n * 1000) / 1000)))
const rendered = (items: string[]): string | null => items.length === 0 ? null : items.join(',')

t.test('the first n items joined with the rest are the whole; joining is splitting undone', async (t) => {
  fc.assert(fc.property(fc.array(item, { maxLength: 200 }), fc.nat({ max: 220 }), (items, n) => {
    const head = firstItems(rendered(items), n)
    const tail = rendered(items.slice(n))
    return head === rendered(items.slice(0, n)) && joinItems(head, tail) === rendered(items)
  }), { numRuns: 500 })
  t.equal(firstItems('1,2,3', 0), null, 'none')
  t.equal(firstItems(null, 3), null, 'no buckets')
  t.equal(joinItems('', '4'), '4')
  t.equal(joinItems('1', null), '1')
})

t.test('columns are split and joined together, each at the same bucket', async (t) => {
  const row = (epochs: string | null, cpu: string | null): HistoryColumnsRow => ({
    epochs, samples: epochs, cpu_avg: cpu, cpu_max: cpu, memory_avg: cpu, memory_max: cpu, database_avg: cpu, database_max: cpu, volume_avg: 'null', volume_max: null
  })
  const whole = row('10,20,30', '0.1,0.2,0.3')
  const first = firstColumns(whole, 2)
  t.same(first, { ...row('10,20', '0.1,0.2'), volume_avg: 'null' })
  t.same(joinColumns(first, row('30', '0.3')), { ...whole, volume_avg: 'null,null' }, 'a column present on both sides keeps both')
})

t.test('entries expire, stay within their range, and the oldest go first', async (t) => {
  let clock = 0
  const cache = createSettledHistory({ maxEntries: 2, ttlMs: 1000, now: () => clock })
  const columns = { epochs: '1' } as HistoryColumnsRow
  cache.set('a', 5000, columns)
  t.equal(cache.get('a', 5000)?.untilMs, 5000)
  t.equal(cache.get('a', 4999), undefined, 'a range that ends before the settled part cannot use it')
  t.equal(cache.get('a', 6000)?.untilMs, 5000, '…and the entry is still there for one that can')
  clock = 1001
  t.equal(cache.get('a', 6000), undefined, 'expired')
  t.equal(cache.size, 0, 'and dropped')
  cache.set('b', 1, columns)
  cache.set('c', 1, columns)
  cache.set('b', 2, columns) // refreshed: now the newest
  cache.set('d', 1, columns)
  t.same([cache.get('b', 9)?.untilMs, cache.get('c', 9), cache.get('d', 9)?.untilMs], [2, undefined, 1], 'c was the oldest')
})
