/** The engine's multiplexed log frames, and timestamped lines, however the chunks fall. */
import t from 'tap'
import fc from 'fast-check'
import { FrameReader } from '../../../provisioning/docker/logs.ts'
import { byTime, timeNs } from '../../../provisioning/log-lines.ts'

const frame = (stream: 1 | 2, text: string): Buffer => {
  const payload = Buffer.from(text, 'utf8')
  const header = Buffer.alloc(8)
  header[0] = stream
  header.writeUInt32BE(payload.length, 4)
  return Buffer.concat([header, payload])
}

const LINE = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '€', '日', '-', ':'), maxLength: 40 })

t.test('lines come back whole, with their stream and time, whatever the chunk boundaries', async (t) => {
  fc.assert(fc.property(
    fc.array(fc.record({ stream: fc.constantFrom(1 as const, 2 as const), line: LINE, nanos: fc.integer({ min: 0, max: 999_999_999 }) }), { maxLength: 20 }),
    fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
    (written, cuts) => {
      const stamped = written.map((w) => ({ ...w, time: `2026-01-31T12:00:00.${String(w.nanos).padStart(9, '0')}Z` }))
      const bytes = Buffer.concat(stamped.map((w) => frame(w.stream, `${w.time} ${w.line}\n`)))
      const reader = new FrameReader()
      const read = []
      for (let at = 0, i = 0; at < bytes.length; i++) {
        const size = cuts[i % cuts.length]!
        read.push(...reader.push(bytes.subarray(at, at + size)))
        at += size
      }
      read.push(...reader.flush())
      t.same(read, stamped.map((w) => ({ time: w.time, stream: w.stream === 1 ? 'stdout' : 'stderr', line: w.line })))
    }
  ), { numRuns: 200 })
})

t.test('a line split over two frames is one line', async (t) => {
  const reader = new FrameReader()
  t.same(reader.push(frame(1, '2026-01-31T12:00:00.5Z hel')), [])
  t.same(reader.push(frame(1, 'lo\n')), [{ time: '2026-01-31T12:00:00.5Z', stream: 'stdout', line: 'hello' }])
})

t.test('times: nanoseconds since the epoch, with any number of fractional digits', async (t) => {
  t.equal(timeNs('2026-01-31T12:00:00Z'), BigInt(Date.parse('2026-01-31T12:00:00Z')) * 1_000_000n)
  t.equal(timeNs('2026-01-31T12:00:00.1Z')! - timeNs('2026-01-31T12:00:00Z')!, 100_000_000n)
  t.equal(timeNs('2026-01-31T13:00:00.000000001+01:00')! - timeNs('2026-01-31T12:00:00Z')!, 1n)
  t.equal(timeNs('yesterday'), undefined)
  fc.assert(fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 0, max: 999_999 }), (ms, extra) => {
    const iso = new Date(ms).toISOString()
    const precise = `${iso.slice(0, 23)}${String(extra).padStart(6, '0')}Z`
    return timeNs(precise) === BigInt(ms) * 1_000_000n + BigInt(extra)
  }))
  // Docker trims trailing zeros: text order is not time order.
  const lines = [{ time: '2026-01-31T12:00:00.12Z' }, { time: '2026-01-31T12:00:00.1Z' }].map((l) => ({ ...l, stream: 'stdout' as const, line: '' }))
  t.same(lines.sort(byTime).map((l) => l.time), ['2026-01-31T12:00:00.1Z', '2026-01-31T12:00:00.12Z'])
})
