import { errors, type AdapterPayload } from 'oidc-provider'
import { isStorableText } from '../lib/storable-text.ts'

/** A stored payload as read back: `consumed` is the epoch second it was consumed, or null. */
export interface PayloadRow {
  payload: AdapterPayload
  consumed: number | null
}

export const withConsumed = (payload: AdapterPayload, consumed: string | number | null): AdapterPayload =>
  consumed === null ? payload : { ...payload, consumed: Number(consumed) }

/**
 * Every value an adapter (or refresh-grace.ts) sends to PostgreSQL passes here first. Request input
 * (a code, a token, a client id, registration metadata) holding a NUL or a
 * lone surrogate is a 400 invalid_request in the OAuth error format, not a
 * database error answered as 500 server_error.
 */
export function assertStorable (...values: unknown[]): void {
  if (!values.every(isStorableText)) {
    throw new errors.InvalidRequest('the request contains a NUL character or text that is not valid UTF-8')
  }
}
