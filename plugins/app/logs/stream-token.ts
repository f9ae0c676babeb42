/**
 * Log stream tokens: `lst1.<payload>.<mac>`, the payload a base64url JSON of who
 * may watch which instance until when, the mac an HMAC-SHA256 under a key of
 * their own (derived from JWT_SECRET with its own HKDF label, so neither kind of
 * token verifies as the other). Nothing is stored: a token is only good for the
 * stream route of its instance, and only for opening a stream within its lifetime.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { isUuid } from '../../../lib/uuid.ts'

const PREFIX = 'lst1'
const PURPOSE = 'logs'

export interface StreamGrant {
  instanceId: number
  userId: string
  tenantId: string
  /** The portal session the token was asked with: its end (logout, deactivation, suspension) ends the stream. */
  sessionId: string
  /** Unix time in ms. */
  expiresAt: number
}

export function createStreamTokens (key: Buffer, ttlSeconds: number, now: () => number = Date.now) {
  const mac = (text: string): Buffer => createHmac('sha256', key).update(text).digest()

  return {
    ttlSeconds,

    sign (grant: Omit<StreamGrant, 'expiresAt'>): string {
      const payload = Buffer.from(JSON.stringify({
        p: PURPOSE, i: grant.instanceId, u: grant.userId, t: grant.tenantId, s: grant.sessionId, e: now() + ttlSeconds * 1000
      })).toString('base64url')
      return `${PREFIX}.${payload}.${mac(`${PREFIX}.${payload}`).toString('base64url')}`
    },

    /** The grant of a well-formed, authentic, unexpired token; undefined for anything else. */
    verify (token: string): StreamGrant | undefined {
      const [prefix, payload, signature, ...rest] = token.split('.')
      if (prefix !== PREFIX || payload === undefined || signature === undefined || rest.length > 0) return undefined
      // The text, not its decoding: base64url decoders forgive the unused bits of the last character.
      const given = Buffer.from(signature)
      const expected = Buffer.from(mac(`${PREFIX}.${payload}`).toString('base64url'))
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
      let claims: { p?: unknown, i?: unknown, u?: unknown, t?: unknown, s?: unknown, e?: unknown }
      try {
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
      } catch {
        return undefined
      }
      const { p, i, u, t, s, e } = claims
      if (p !== PURPOSE || !Number.isSafeInteger(i) || typeof e !== 'number' || e <= now()) return undefined
      if (typeof u !== 'string' || typeof t !== 'string' || typeof s !== 'string' || !isUuid(u) || !isUuid(t) || !isUuid(s)) return undefined
      return { instanceId: i as number, userId: u, tenantId: t, sessionId: s, expiresAt: e }
    }
  }
}

export type StreamTokens = ReturnType<typeof createStreamTokens>
