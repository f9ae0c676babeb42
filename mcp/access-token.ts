import { errors, jwtVerify, type JWTVerifyGetKey } from 'jose'
import { isUuid } from '../lib/uuid.ts'
import { createHttpCachedJwks, SigningKeysUnavailable } from './jwks-cache.ts'

export { SigningKeysUnavailable }

/** What /api/mcp takes from a verified access token; who the person is comes from the portal's records. */
export interface AccessTokenClaims {
  jti: string
  /** The portal user id. */
  sub: string
  clientId: string
  /** The OAuth grant (the "connected agent") the token was issued under. */
  grantId: string
  exp: number
}

export interface AccessTokenVerifierOptions {
  /** BASE_URL: the issuer. */
  issuer: string
  /** BASE_URL/api/mcp. */
  audience: string
  /**
   * The authorization server's published keys: its JWKS URL, or where that URL
   * is now (the auth server's port can change as it restarts), or a key resolver in tests.
   */
  keys: URL | { locate: () => Promise<URL> } | JWTVerifyGetKey
  /** Least time between two JWKS fetches caused by unknown `kid`s (default 30 s). */
  jwksCooldownMs?: number
  /** The clock of the JWKS cache (tests). */
  now?: () => number
}

/** Why a token was refused; logged, never sent (the challenge says only `invalid_token`). */
export class AccessTokenRejected extends Error {
  override name = 'AccessTokenRejected'
}

const VERIFIED_CACHE_SIZE = 10_000

/**
 * Verifies access tokens from our authorization server: RS256 only (so `none`
 * and HS256 are refused before any key is looked up), `typ: at+jwt`, issuer,
 * audience, expiry, and `mcp` in `scope`. The JWKS is cached as its HTTP cache
 * headers say and fetched again when a token names a key it does not know
 * (jwks-cache.ts, with a cooldown against floods of made-up `kid`s).
 */
export function createAccessTokenVerifier (options: AccessTokenVerifierOptions) {
  const source = options.keys
  const jwksOptions = { cooldownMs: options.jwksCooldownMs ?? 30_000, timeoutMs: 5000, ...(options.now === undefined ? {} : { now: options.now }) }
  const keys = typeof source === 'function'
    ? source
    : createHttpCachedJwks(source instanceof URL ? async () => source : source.locate, jwksOptions)

  // Agents send the same token on every call for its whole life: its signature is checked once and the
  // result kept until it expires. (The grant, person and denylist are still checked on every request.)
  const verified = new Map<string, AccessTokenClaims>()

  function remember (token: string, claims: AccessTokenClaims): void {
    if (verified.size >= VERIFIED_CACHE_SIZE) {
      const now = Date.now() / 1000
      for (const [key, value] of verified) if (value.exp <= now) verified.delete(key)
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string)
    }
    verified.set(token, claims)
  }

  return async function verify (token: string): Promise<AccessTokenClaims> {
    const known = verified.get(token)
    if (known !== undefined) {
      if (known.exp > Date.now() / 1000) return known
      verified.delete(token)
      throw new AccessTokenRejected('"exp" claim timestamp check failed')
    }
    const claims = await verifySignatureAndClaims(token)
    remember(token, claims)
    return claims
  }

  async function verifySignatureAndClaims (token: string): Promise<AccessTokenClaims> {
    let payload
    try {
      ({ payload } = await jwtVerify(token, keys, {
        algorithms: ['RS256'],
        typ: 'at+jwt',
        issuer: options.issuer,
        audience: options.audience,
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'scope']
      }))
    } catch (error) {
      if (isKeySetFailure(error) || (error as { code?: unknown }).code === SigningKeysUnavailable.code) throw SigningKeysUnavailable()
      throw new AccessTokenRejected(error instanceof Error ? error.message : String(error))
    }
    const { jti, sub, exp, client_id: clientId, scope, grant_id: grantId, aud } = payload as Record<string, unknown>
    // jose accepts an audience list that contains ours; our server issues exactly one.
    if (aud !== options.audience) throw new AccessTokenRejected('aud is not exactly this resource')
    if (typeof scope !== 'string' || !scope.split(' ').includes('mcp')) throw new AccessTokenRejected('the token lacks the mcp scope')
    if (typeof sub !== 'string' || !isUuid(sub)) throw new AccessTokenRejected('sub is not a portal user id')
    if (typeof jti !== 'string' || typeof clientId !== 'string' || typeof grantId !== 'string' || typeof exp !== 'number') {
      throw new AccessTokenRejected('jti, client_id, grant_id and exp are required')
    }
    return { jti, sub, clientId, grantId, exp }
  }
}

/** A network error, a timeout or a non-200 answer from the JWKS URL (not a problem with the token). */
function isKeySetFailure (error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout) return true
  if (!(error instanceof errors.JOSEError)) return error instanceof TypeError && /fetch/i.test(error.message)
  return error.code === 'ERR_JOSE_GENERIC' && /JSON Web Key Set/.test(error.message)
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>
