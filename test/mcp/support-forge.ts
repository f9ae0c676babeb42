import { randomUUID } from 'node:crypto'
import { decodeJwt, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWTHeaderParameters, type JWTPayload } from 'jose'
import type { TestAuthServer } from '../auth-server/helpers.ts'

type Claims = Record<string, unknown>

/**
 * Signs access tokens in the test, with the authorization server's real
 * private key unless told otherwise, so that each forged token differs from a
 * genuine one in exactly the way a case names.
 */
export async function createTokenForger (auth: TestAuthServer) {
  const signingJwk = auth.keys.jwks.keys.find((jwk) => jwk.kid === auth.keys.signingKid)
  if (signingJwk === undefined) throw new Error('the auth server has no signing key')
  const realKey = await importJWK(signingJwk as Parameters<typeof importJWK>[0], 'RS256') as CryptoKey
  const realHeader: JWTHeaderParameters = { alg: 'RS256', typ: 'at+jwt', kid: auth.keys.signingKid }

  return {
    /** The published RSA modulus (`n`) and exponent, as anyone can read them from the JWKS. */
    publicJwk: { kty: 'RSA', n: signingJwk.n as string, e: signingJwk.e as string },

    /** A genuine token's claims with a fresh jti, iat and exp: signed as is, it is accepted. */
    claimsLike (accessToken: string): Claims {
      const now = Math.floor(Date.now() / 1000)
      return { ...decodeJwt(accessToken), jti: randomUUID(), iat: now, exp: now + 900 }
    },

    /** Signs with the real key and header; `header` and `key` replace either for one case. */
    async sign (claims: Claims, options: { header?: Partial<JWTHeaderParameters>, key?: CryptoKey | Uint8Array } = {}): Promise<string> {
      return new SignJWT(claims as JWTPayload).setProtectedHeader({ ...realHeader, ...options.header }).sign(options.key ?? realKey)
    },

    /** `alg: none`: a header and a payload and an empty signature. */
    unsigned (claims: Claims): string {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
      return `${encode({ alg: 'none', typ: 'at+jwt', kid: auth.keys.signingKid })}.${encode(claims)}.`
    }
  }
}

/** An RSA key the authorization server never published. */
export async function strangerKey (): Promise<CryptoKey> {
  return (await generateKeyPair('RS256')).privateKey
}

/** Drops one claim. */
export function without (claims: Claims, name: string): Claims {
  const { [name]: _dropped, ...rest } = claims
  return rest
}
