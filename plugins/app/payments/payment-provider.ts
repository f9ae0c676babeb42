import type { IncomingHttpHeaders } from 'node:http'

/** What a provider tells us about one transaction, normalised. */
export interface PaymentEvent {
  /** The provider's own id of the transaction: the idempotency key, with the provider's name. */
  transactionId: string
  /** Our payment reference, as quoted by the payer. */
  reference: string
  /** Integer minor units of `currency`. */
  amount: number
  /** ISO 4217, upper case. */
  currency: string
  /** Final outcome; the first event for a transaction id wins. */
  status: 'paid' | 'failed'
}

/**
 * A payment provider (mobile money, cards) as the webhook sees it. Each one
 * authenticates its calls its own way and has its own payload format; the rest
 * of the payment flow only sees `PaymentEvent`s.
 */
export interface PaymentProvider {
  name: string
  /** Constant-time check of the request's signature over the exact bytes received. */
  verifySignature: (rawBody: Buffer, headers: IncomingHttpHeaders) => boolean
  /** Called only after the signature was verified; throws PAYMENT_EVENT_INVALID for a payload it cannot read. */
  parseEvent: (rawBody: Buffer) => PaymentEvent
}
