/** Stream tokens: good only as signed, before they expire, and for what they say. */
import t from 'tap'
import fc from 'fast-check'
import { createStreamTokens } from '../../../../plugins/app/logs/stream-token.ts'
import { IdAssigner, isAfter, parseEventId } from '../../../../plugins/app/logs/log-ids.ts'

const grant = { instanceId: 42, userId: '11111111-1111-4111-8111-111111111111', tenantId: '22222222-2222-4222-8222-222222222222', sessionId: '33333333-3333-4333-8333-333333333333' }
const key = Buffer.alloc(32, 7)

t.test('a token verifies to its grant until it expires', async (t) => {
  let now = 1_000_000
  const tokens = createStreamTokens(key, 60, () => now)
  const token = tokens.sign(grant)
  t.match(token, /^lst1\.[\w-]+\.[\w-]+$/)
  t.same(tokens.verify(token), { ...grant, expiresAt: 1_060_000 })
  now = 1_059_999
  t.ok(tokens.verify(token), 'still good a millisecond before')
  now = 1_060_000
  t.equal(tokens.verify(token), undefined, 'expired')
})

t.test('any change to a token, another key, or another kind of token is refused', async (t) => {
  const tokens = createStreamTokens(key, 60)
  const token = tokens.sign(grant)
  fc.assert(fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...'abcXYZ019-_.'), (at, char) => {
    const changed = `${token.slice(0, at)}${char}${token.slice(at + 1)}`
    return changed === token || tokens.verify(changed) === undefined
  }), { numRuns: 500 })
  t.equal(createStreamTokens(Buffer.alloc(32, 8), 60).verify(token), undefined, 'another key')
  t.equal(tokens.verify('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'), undefined, 'a JWT')
  t.equal(tokens.verify(''), undefined)
})

t.test('event ids: increasing in the order lines come, and parsed back', async (t) => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }), (steps) => {
    const ids = new IdAssigner()
    let ms = Date.parse('2026-01-31T12:00:00Z')
    const entries = steps.map((step) => {
      ms += step - 1 // sometimes the same time, sometimes an earlier one
      return ids.next({ time: new Date(ms).toISOString(), stream: 'stdout', line: '' })
    })
    return entries.every((entry, i) => {
      const parsed = parseEventId(entry.id)
      return parsed !== undefined && parsed.ns === entry.ns && parsed.seq === entry.seq && (i === 0 || isAfter(entry, entries[i - 1]!))
    })
  }))
  t.equal(parseEventId('12-x'), undefined)
  t.equal(parseEventId(undefined), undefined)
})
