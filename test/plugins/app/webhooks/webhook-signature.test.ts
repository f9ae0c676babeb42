import t from 'tap'
import fc from 'fast-check'
import { signatureHeader, verifySignature } from '../../../../plugins/app/webhooks/webhook-signature.ts'
import { webhookRetryLimit } from '../../../../plugins/app/webhooks/webhook-delivery.queue.ts'
import { newWebhookSecret, createWebhookSecretSealer } from '../../../../plugins/app/webhooks/webhook-secret.ts'
import { webhookEventOf, WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '../../../../plugins/app/webhooks/webhook-events.ts'
import { ACTIVITY_TYPES } from '../../../../plugins/app/activity/activity-types.ts'

const secret = fc.string({ minLength: 1, maxLength: 80 })

t.test('a signature verifies under its secret, and under no other secret, body or time', async (t) => {
  fc.assert(fc.property(secret, secret, fc.string(), fc.string(), fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }), (key, other, body, otherBody, time) => {
    const header = signatureHeader([key], time, body)
    if (!verifySignature(header, body, key, time)) return false
    if (other !== key && verifySignature(header, body, other, time)) return false
    if (otherBody !== body && verifySignature(header, otherBody, key, time)) return false
    return !verifySignature(header, body, key, time + 301) && verifySignature(header, body, key, time + 299)
  }))
})

t.test('during a rotation the header carries one v1 per secret, and either verifies it', async (t) => {
  fc.assert(fc.property(secret, secret, fc.string(), (next, previous, body) => {
    const header = signatureHeader([next, previous], 1_800_000_000, body)
    return header.split(',').length === 3 && verifySignature(header, body, next, 1_800_000_000) && verifySignature(header, body, previous, 1_800_000_000)
  }))
  t.notOk(verifySignature('t=abc,v1=00', 'x', 'k'), 'a malformed header is refused')
  t.notOk(verifySignature('', 'x', 'k'), 'no header is refused')
})

t.test('the retry schedule fits in its window and covers most of it', async (t) => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 1, max: 168 }), (base, hours) => {
    const retries = webhookRetryLimit(base, hours)
    let waited = 0
    for (let n = 0; n < retries; n++) waited += Math.min(3600, base * 2 ** n)
    return waited <= hours * 3600 && waited + 3600 > hours * 3600 - Math.min(3600, base * 2 ** retries)
  }))
  t.equal(webhookRetryLimit(30, 24), 29, 'the defaults: 29 retries (30 attempts) in a day')
})

t.test('a sealed secret opens only for its endpoint', async (t) => {
  const sealer = createWebhookSecretSealer(Buffer.alloc(32, 7).toString('base64url'))
  const value = newWebhookSecret()
  const sealed = sealer.seal(value, 'endpoint-a')
  t.notOk(sealed.includes(value.slice(6)))
  t.equal(sealer.open(sealed, 'endpoint-a'), value)
  t.throws(() => sealer.open(sealed, 'endpoint-b'))
})

t.test('every webhook event comes from an activity type of the catalog, each from its own', async (t) => {
  for (const type of WEBHOOK_EVENT_TYPES) {
    t.ok((ACTIVITY_TYPES as readonly string[]).includes(WEBHOOK_EVENTS[type].activity), `${type} ← ${WEBHOOK_EVENTS[type].activity}`)
    t.equal(webhookEventOf(WEBHOOK_EVENTS[type].activity), type)
  }
  t.equal(webhookEventOf('user.created'), undefined, 'other activities are no event')
})
