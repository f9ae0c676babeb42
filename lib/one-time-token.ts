import { createHash, randomBytes } from 'node:crypto'

/**
 * The tokens e-mailed links carry (password reset, e-mail change): 32 random
 * bytes in base64url. Only their SHA-256 is stored; a plain hash is enough
 * because a token has 256 bits of entropy.
 */
export const hashOneTimeToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

export function newOneTimeToken (): { token: string, hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashOneTimeToken(token) }
}

/** Rate-limit key of the link a request names: its hash (the token itself is a credential). */
export function oneTimeLinkKey (request: { body?: unknown }): string {
  const token = (request.body as { token?: unknown } | undefined)?.token
  return typeof token === 'string' ? hashOneTimeToken(token) : '-'
}
