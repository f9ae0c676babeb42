import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose'

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
  /** The authorization server's published keys (its JWKS URL), or a key resolver in tests. */
  keys: URL | JWTVerifyGetKey
}

/** Why a token was refused; logged, never sent (the challenge says only `invalid_token`). */
export class AccessTokenRejected extends Error {
  override name = 'AccessTokenRejected'
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Verifies access tokens from our authorization server: RS256 only (so `none`
 * and HS256 are refused before any key is looked up), `typ: at+jwt`, issuer,
 * audience, expiry, and `mcp` in `scope`. The JWKS is cached and fetched again
 * when a token names a key it does not know (jose's remote key set, with its
 * cooldown against floods of made-up `kid`s).
 */
export function createAccessTokenVerifier (options: AccessTokenVerifierOptions) {
  const keys = options.keys instanceof URL
    ? createRemoteJWKSet(options.keys, { cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000, timeoutDuration: 5000 })
    : options.keys

  return async function verify (token: string): Promise<AccessTokenClaims> {
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
      throw new AccessTokenRejected(error instanceof Error ? error.message : String(error))
    }
    const { jti, sub, exp, client_id: clientId, scope, grant_id: grantId } = payload as Record<string, unknown>
    if (typeof scope !== 'string' || !scope.split(' ').includes('mcp')) throw new AccessTokenRejected('the token lacks the mcp scope')
    if (typeof sub !== 'string' || !UUID.test(sub)) throw new AccessTokenRejected('sub is not a portal user id')
    if (typeof jti !== 'string' || typeof clientId !== 'string' || typeof grantId !== 'string' || typeof exp !== 'number') {
      throw new AccessTokenRejected('jti, client_id, grant_id and exp are required')
    }
    return { jti, sub, clientId, grantId, exp }
  }
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>
