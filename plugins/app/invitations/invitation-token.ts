import { createHash, randomBytes } from 'node:crypto'

/**
 * The invited person's only credential: 32 random bytes, base64url. Only its
 * SHA-256 is stored, so a database leak yields no usable links; a plain hash
 * is enough because the token has 256 bits of entropy (nothing to brute-force).
 */
export function newInvitationToken (): { token: string, tokenHash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, tokenHash: hashInvitationToken(token) }
}

export function hashInvitationToken (token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}
