/** The history range's arithmetic: defaults, steps, and the 1,000-bucket budget. */
import t from 'tap'
import fc from 'fast-check'
import { allowedStep, BUCKET_ORIGIN_MS, bucketCount, firstWholeBucket, MAX_POINTS, resolveRange, stepSeconds } from '../../../../plugins/app/metrics/history-range.ts'

const now = new Date('2026-11-25T14:37:12.345Z')

t.test('defaults: the last 24 hours at 5-minute steps', async (t) => {
  const range = resolveRange({}, now)
  t.equal(range.to.toISOString(), now.toISOString())
  t.equal(range.to.getTime() - range.from.getTime(), 86_400_000)
  t.match(range, { step: '5m', stepSeconds: 300, wholeHours: false })
  t.match(resolveRange({ step: '2h' }, now), { stepSeconds: 7200, wholeHours: true })
  t.same(['30s', '5m', '1h', '1d'].map(stepSeconds), [30, 300, 3600, 86_400])
})

t.test('bucket counts: aligned and unaligned ranges', async (t) => {
  const hour = new Date('2026-11-25T10:00:00Z')
  t.equal(bucketCount(hour, new Date(hour.getTime() + 3 * 3600_000), 3600), 3, 'three whole hours')
  t.equal(bucketCount(new Date(hour.getTime() + 60_000), new Date(hour.getTime() + 3 * 3600_000 + 60_000), 3600), 4, 'shifted by a minute: four hours touched')
})

t.test('the first whole bucket is the first boundary at or after from', async (t) => {
  t.equal(firstWholeBucket({ from: new Date('2026-11-25T10:00:00Z'), stepSeconds: 3600 }), Date.parse('2026-11-25T10:00:00Z'), 'on a boundary: that one')
  t.equal(firstWholeBucket({ from: new Date('2026-11-25T10:00:00.001Z'), stepSeconds: 3600 }), Date.parse('2026-11-25T11:00:00Z'), 'just past it: the next')
  t.doesNotThrow(() => fc.assert(fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), fc.integer({ min: 1, max: 30 * 86_400 }), (from, seconds) => {
    const first = firstWholeBucket({ from: new Date(from), stepSeconds: seconds })
    const width = seconds * 1000
    return (first - BUCKET_ORIGIN_MS) % width === 0 && first >= from && first - from < width &&
      bucketCount(new Date(from), new Date(first + width), seconds) === (first === from ? 1 : 2)
  })))
})

t.test('any accepted range answers at most 1,000 buckets, and the allowed step is always accepted', async (t) => {
  const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  t.doesNotThrow(() => fc.assert(fc.property(instant, fc.integer({ min: 1, max: 400 * 86_400_000 }), fc.integer({ min: 1, max: 100_000 }), (start, span, step) => {
    const from = new Date(start)
    const to = new Date(start + span)
    const query = { from: from.toISOString(), to: to.toISOString(), step: `${step}s` }
    let accepted = true
    try {
      resolveRange(query, now)
    } catch (error) {
      accepted = false
      const details = (error as { details: { allowed_step: string, min_step_seconds: number } }).details
      // The step it names fits, from whatever instant the range starts.
      const allowed = resolveRange({ ...query, step: details.allowed_step }, now)
      if (bucketCount(allowed.from, allowed.to, allowed.stepSeconds) > MAX_POINTS) return false
      if (bucketCount(from, to, details.min_step_seconds) > MAX_POINTS) return false
    }
    return !accepted || bucketCount(from, to, step) <= MAX_POINTS
  }), { numRuns: 500 }))
})

t.test('refusals name the field', async (t) => {
  const week = { from: '2026-11-18T00:00:00Z', to: '2026-11-25T00:00:00Z' }
  t.throws(() => resolveRange({ ...week, step: '1m' }, now), { code: 'METRICS_TOO_MANY_POINTS', details: { allowed_step: '15m', points: 10_080 } })
  t.throws(() => resolveRange({ from: week.to, to: week.from }, now), { code: 'METRICS_RANGE_INVALID', details: { field: 'from' } })
  t.throws(() => resolveRange({ from: 'soon' }, now), { code: 'METRICS_RANGE_INVALID', details: { field: 'from' } })
  t.throws(() => resolveRange({ step: '5w' }, now), { code: 'METRICS_RANGE_INVALID', details: { field: 'step' } })
  t.same(allowedStep(7 * 86_400_000), { seconds: 606, step: '15m' })
})
