import fc from 'fast-check'
import t from 'tap'
import { Secret, TOTP } from 'otpauth'
import { codeAt, matchingStep, newTotpSecret, normalizeTotpCode, stepAt, TOTP_PERIOD_SECONDS } from '../../../../plugins/app/two-factor/totp.ts'

const secretArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => new Secret({ buffer: bytes.buffer as ArrayBuffer }).base32)
const stepArb = fc.integer({ min: 2, max: 2 ** 40 })

t.test('codes are the RFC 6238 test vector and what otpauth (an authenticator app) shows', async (t) => {
  // RFC 6238 appendix B, SHA-1, secret "12345678901234567890", 8 digits there: the last 6 are the 6-digit code.
  const rfcSecret = Secret.fromLatin1('12345678901234567890').base32
  for (const [seconds, eight] of [[59, '94287082'], [1111111109, '07081804'], [1234567890, '89005924'], [2000000000, '69279037']] as const) {
    t.equal(codeAt(rfcSecret, stepAt(seconds * 1000)), eight.slice(2), `T = ${seconds}`)
  }
  fc.assert(fc.property(secretArb, fc.integer({ min: 0, max: 2 ** 41 }), (secret, ms) => {
    const app = new TOTP({ secret: Secret.fromBase32(secret) })
    return codeAt(secret, stepAt(ms)) === app.generate({ timestamp: ms })
  }))
})

t.test('the window: the codes of step - 1, step and step + 1 are accepted, any other step\'s refused', async (t) => {
  fc.assert(fc.property(secretArb, stepArb, fc.integer({ min: -1, max: 1 }), (secret, now, offset) => {
    return matchingStep(secret, codeAt(secret, now + offset), now, null) === now + offset
  }))
  fc.assert(fc.property(secretArb, stepArb, fc.integer({ min: -10_000, max: 10_000 }).filter((d) => Math.abs(d) > 1), (secret, now, distance) => {
    const code = codeAt(secret, now + distance)
    // A code of a far step may equal one of the window's by chance (one in a million): then it is that step's code.
    fc.pre(![now - 1, now, now + 1].some((step) => codeAt(secret, step) === code))
    return matchingStep(secret, code, now, null) === undefined
  }))
})

t.test('replay: an accepted step is never accepted again, nor any step before it', async (t) => {
  fc.assert(fc.property(secretArb, stepArb, fc.integer({ min: -1, max: 1 }), fc.integer({ min: 0, max: 3 }), (secret, now, offset, later) => {
    const accepted = matchingStep(secret, codeAt(secret, now + offset), now, null)
    if (accepted !== now + offset) return false
    // The same code, presented again now or up to `later` steps on, with the accepted step recorded.
    for (let step = now; step <= now + later; step++) {
      if (matchingStep(secret, codeAt(secret, accepted), step, accepted) !== undefined) return false
    }
    // An older code of the window is refused too; a newer one still works.
    if (offset > -1 && matchingStep(secret, codeAt(secret, accepted - 1), now, accepted) !== undefined) return false
    return offset === 1 || matchingStep(secret, codeAt(secret, accepted + 1), now, accepted) === accepted + 1
  }))
})

t.test('codes are six digits; spaces are ignored, anything else is not a code', async (t) => {
  t.equal(normalizeTotpCode('123 456'), '123456')
  for (const bad of ['12345', '1234567', 'abcdef', '12345a', '', '１２３４５６']) t.equal(normalizeTotpCode(bad), undefined, JSON.stringify(bad))
  t.match(newTotpSecret(), /^[A-Z2-7]{32}$/)
  t.equal(stepAt(TOTP_PERIOD_SECONDS * 1000 - 1), 0)
  t.equal(stepAt(TOTP_PERIOD_SECONDS * 1000), 1)
})
