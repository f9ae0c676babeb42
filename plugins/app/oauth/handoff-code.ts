import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { deriveKey } from '../../../lib/secrets.ts'

/**
 * A handoff code: 32 random bytes, base64url. Only its SHA-256 is stored; a
 * plain hash is enough because the code has 256 bits of entropy.
 */
export function newHandoffCode (): { code: string, codeHash: string } {
  const code = randomBytes(32).toString('base64url')
  return { code, codeHash: hashHandoffCode(code) }
}

export function hashHandoffCode (code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex')
}

/** Where the browser goes next: the auth server's handoff endpoint on the public origin. */
export function handoffRedirectUrl (baseUrl: string, transaction: string, code: string): string {
  return `${baseUrl}/oauth/handoff?oauth_transaction=${encodeURIComponent(transaction)}&handoff_code=${encodeURIComponent(code)}`
}

/**
 * The secret the auth server sends in X-OAuth-Handoff-Secret: HANDOFF_SECRET,
 * or, when unset, a key derived from JWT_SECRET (so a single-secret install
 * works). The auth server must call this same function with the same values.
 */
export function resolveHandoffSecret (handoffSecret: string | undefined, jwtSecret: string | undefined): string {
  if (handoffSecret !== undefined) return handoffSecret
  if (jwtSecret === undefined) throw new Error('HANDOFF_SECRET or JWT_SECRET must be set')
  return deriveKey(jwtSecret, 'oauth-handoff').toString('base64url')
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function secretMatches (expected: string, presented: string | undefined): boolean {
  if (presented === undefined || presented === '') return false
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(expected), digest(presented))
}
