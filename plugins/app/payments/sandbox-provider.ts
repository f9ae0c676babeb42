import { randomUUID } from 'node:crypto'
import type { PaymentEvent, PaymentProvider } from './payment-provider.ts'
import { PaymentEventInvalid } from './payments.errors.ts'
import { signBody, verifyBodySignature } from './hmac-signature.ts'

/** The sandbox's JSON payload, as documented in docs/billing.md (amount in minor units). */
export interface SandboxPayload {
  transaction_id: string
  reference: string
  amount: number
  currency: string
  status: 'paid' | 'failed'
}

function text (value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) throw PaymentEventInvalid(`${field} must be a non-empty string of at most ${max} characters`, { field })
  return value
}

export function parseSandboxPayload (rawBody: Buffer): PaymentEvent {
  let body: Record<string, unknown>
  try {
    body = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>
  } catch {
    throw PaymentEventInvalid('The body is not JSON')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw PaymentEventInvalid('The body must be a JSON object')
  const { amount, currency, status } = body
  if (!Number.isSafeInteger(amount) || (amount as number) < 0) throw PaymentEventInvalid('amount must be a whole number of minor units (cents), not negative', { field: 'amount' })
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw PaymentEventInvalid('currency must be an ISO 4217 code in upper case', { field: 'currency' })
  if (status !== 'paid' && status !== 'failed') throw PaymentEventInvalid('status must be "paid" or "failed"', { field: 'status' })
  return {
    transactionId: text(body.transaction_id, 'transaction_id', 128),
    reference: text(body.reference, 'reference', 64),
    amount: amount as number,
    currency,
    status
  }
}

/**
 * The sandbox provider: JSON events signed with HMAC-SHA256 of the raw body
 * in `X-Signature: sha256=<hex>`. It can also produce such events, which is how
 * the sandbox "pays" (ops/payments.ts, POST /api/payments/sandbox/pay).
 */
export function createSandboxProvider (secret: string): PaymentProvider & { signedEvent: (payload: Omit<SandboxPayload, 'transaction_id'> & { transaction_id?: string }) => { rawBody: Buffer, signature: string } } {
  return {
    name: 'sandbox',
    verifySignature: (rawBody, headers) => verifyBodySignature(secret, rawBody, headers['x-signature']),
    parseEvent: parseSandboxPayload,
    signedEvent (payload) {
      const rawBody = Buffer.from(JSON.stringify({ transaction_id: `sandbox-${randomUUID()}`, ...payload }))
      return { rawBody, signature: signBody(secret, rawBody) }
    }
  }
}

export type SandboxProvider = ReturnType<typeof createSandboxProvider>
