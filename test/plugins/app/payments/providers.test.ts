import { createHmac } from 'node:crypto'
import t from 'tap'
import { signBody, verifyBodySignature } from '../../../../plugins/app/payments/hmac-signature.ts'
import { createPaymentProviders, deriveSandboxSecret, parseWebhookSecrets } from '../../../../plugins/app/payments/payment-providers.ts'
import { decidePayment } from '../../../../plugins/app/payments/payment-decision.ts'
import type { PaymentEvent } from '../../../../plugins/app/payments/payment-provider.ts'

const JWT = 'a-jwt-secret-that-is-long-enough-0123456789'

t.test('X-Signature is sha256=<hex HMAC-SHA256 of the raw body>', async (t) => {
  const body = Buffer.from('{"a":1}')
  const expected = `sha256=${createHmac('sha256', 'the-secret').update(body).digest('hex')}`
  t.equal(signBody('the-secret', body), expected)
  t.ok(verifyBodySignature('the-secret', body, expected))
  t.ok(verifyBodySignature('the-secret', body, expected.toUpperCase().replace('SHA256=', 'sha256=')), 'hex in either case')
  for (const wrong of [undefined, '', 'sha256=', expected.slice(0, -2), `${expected}00`, expected.replace('sha256', 'sha512'), ['a', 'b'], signBody('other', body)]) {
    t.notOk(verifyBodySignature('the-secret', body, wrong as string), `refuses ${JSON.stringify(wrong)}`)
  }
  t.notOk(verifyBodySignature('the-secret', Buffer.from('{"a":2}'), expected), 'another body')
})

t.test('the sandbox secret is derived from JWT_SECRET unless configured', async (t) => {
  t.equal(deriveSandboxSecret(JWT), deriveSandboxSecret(JWT), 'stable')
  t.not(deriveSandboxSecret(JWT), deriveSandboxSecret(`${JWT}x`))
  t.match(deriveSandboxSecret(JWT), /^[0-9a-f]{64}$/)
  const derived = createPaymentProviders({ providers: 'sandbox', secrets: '', jwtSecret: JWT }).sandbox
  const event = derived?.signedEvent({ reference: 'R', amount: 1, currency: 'EUR', status: 'paid' })
  t.ok(event && derived?.verifySignature(event.rawBody, { 'x-signature': signBody(deriveSandboxSecret(JWT), event.rawBody) }))
  const configured = createPaymentProviders({ providers: 'sandbox', secrets: 'sandbox:configured-secret-123456', jwtSecret: JWT }).sandbox
  t.ok(event && !configured?.verifySignature(event.rawBody, { 'x-signature': event.signature }), 'a configured secret wins')
})

t.test('configuration: enabled names, secrets, clear errors', async (t) => {
  t.same([...parseWebhookSecrets(' sandbox:abc:def-0123456789 , Other:0123456789abcdef ')], [['sandbox', 'abc:def-0123456789'], ['other', '0123456789abcdef']])
  t.throws(() => parseWebhookSecrets('sandbox'), /provider:secret/)
  t.throws(() => parseWebhookSecrets(':secret-0123456789'), /provider:secret/)
  t.throws(() => parseWebhookSecrets('sandbox:short'), /at least 16/)
  t.throws(() => parseWebhookSecrets('a:0123456789abcdef,A:0123456789abcdef'), /twice/)
  t.throws(() => createPaymentProviders({ providers: 'sandbox,mpesa', secrets: '', jwtSecret: JWT }), /PAYMENT_PROVIDERS names "mpesa".*supported: sandbox/)
  t.throws(() => createPaymentProviders({ providers: 'toString', secrets: '', jwtSecret: JWT }), /not supported/)
  const none = createPaymentProviders({ providers: ' , ', secrets: '', jwtSecret: JWT })
  t.same(none.names, [])
  t.equal(none.sandbox, undefined)
  t.equal(none.get('sandbox'), undefined)
  t.same(createPaymentProviders({ providers: 'Sandbox,sandbox', secrets: '', jwtSecret: JWT }).names, ['sandbox'])
})

t.test('a payment applies only when it is exactly what is due', async (t) => {
  const event: PaymentEvent = { transactionId: 't', reference: 'R', amount: 4900, currency: 'EUR', status: 'paid' }
  const due = { status: 'pending_payment' as const, amountDue: 4900, currency: 'EUR' }
  t.same(decidePayment(event, due), { status: 'paid' })
  t.match(decidePayment({ ...event, status: 'failed' }, due), { status: 'failed', reason: /reported the payment as failed/ })
  t.match(decidePayment({ ...event, amount: 4901 }, due), { status: 'failed', reason: 'Amount 49.01 EUR does not match the 49.00 EUR due' })
  t.match(decidePayment({ ...event, currency: 'JPY', amount: 4900 }, due), { status: 'failed', reason: /Currency JPY/ })
  t.match(decidePayment(event, { ...due, status: 'active', amountDue: 0 }), { status: 'failed', reason: /Nothing was due .*active/ })
  t.match(decidePayment(event, { ...due, status: 'trialing' }), { status: 'failed' })
})
