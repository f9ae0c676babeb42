import { createHmac, timingSafeEqual } from 'node:crypto'

const HEADER_VALUE = /^sha256=([0-9a-f]{64})$/i

/** `sha256=<hex HMAC-SHA256 of the body>`, the value of the X-Signature header. */
export function signBody (secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`
}

/**
 * Checks an X-Signature header value against the body. Both sides are 32-byte
 * digests once the format is checked, so the comparison takes the same time
 * whatever the header holds.
 */
export function verifyBodySignature (secret: string, rawBody: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false
  const match = HEADER_VALUE.exec(header.trim())
  if (match?.[1] === undefined) return false
  const expected = createHmac('sha256', secret).update(rawBody).digest()
  return timingSafeEqual(Buffer.from(match[1], 'hex'), expected)
}
