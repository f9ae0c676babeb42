import { createHmac, timingSafeEqual } from 'node:crypto'

/** `v1=<hex HMAC-SHA256 of "<t>.<body>">` under one secret (the whole string, `whsec_` included, is the key). */
export function signatureOf (secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
}

/**
 * The `Webhook-Signature` header: `t=<unix seconds>,v1=<hex>`, with one `v1` per secret that
 * signs (two during a rotation's grace period, the new secret's first).
 */
export function signatureHeader (secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`)].join(',')
}

/**
 * What a receiver does (docs/webhooks.md): true when one `v1` matches under `secret` and `t`
 * is within `toleranceSeconds` of `now`.
 */
export function verifySignature (header: string, body: string, secret: string, now = Date.now() / 1000, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((part) => part.split('=', 2) as [string, string | undefined])
  const t = Number(parts.find(([key]) => key === 't')?.[1])
  if (!Number.isInteger(t) || Math.abs(now - t) > toleranceSeconds) return false
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex')
  return parts.some(([key, value]) => key === 'v1' && value !== undefined && value.length === 64 &&
    timingSafeEqual(Buffer.from(value, 'hex'), expected))
}
