/** The history's bucket starts: formatted per day, exactly as Date#toISOString writes them. */
import t from 'tap'
import fc from 'fast-check'
import { isoTimes } from '../../../../plugins/app/metrics/metrics.view.ts'

// From 1900 to the last second of 9999: the range ISO 8601 writes with four-digit years.
const epoch = fc.integer({ min: -2_208_988_800, max: 253_402_300_799 })

t.test('any ascending whole-second epochs read as Date#toISOString reads them', async (t) => {
  fc.assert(fc.property(fc.array(epoch, { maxLength: 300 }), (values) => {
    const ascending = [...values].sort((a, b) => a - b)
    const expected = ascending.map((value) => new Date(value * 1000).toISOString())
    const times = isoTimes(ascending.map(String))
    return times.length === expected.length && times.every((time, i) => time === expected[i])
  }), { numRuns: 300 }) // throws with the smallest counterexample
  t.pass('300 random series agree')
})

t.test('hourly buckets across midnight and a leap day', async (t) => {
  const start = Date.UTC(2028, 1, 28, 22) / 1000
  const epochs = Array.from({ length: 30 }, (_, i) => String(start + i * 3600))
  const times = isoTimes(epochs)
  t.equal(times[0], '2028-02-28T22:00:00.000Z')
  t.equal(times[2], '2028-02-29T00:00:00.000Z')
  t.equal(times[29], '2028-03-01T03:00:00.000Z')
})
