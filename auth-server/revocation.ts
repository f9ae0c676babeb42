import { createPublicKey, verify, type JsonWebKey } from 'node:crypto'
import type pg from 'pg'
import { errors, type KoaMiddleware } from 'oidc-provider'

/** The message of every refusal to revoke another client's token. */
const NOT_YOURS = 'the token was not issued to this client'

/**
 * RFC 7009 2.1: the server verifies that the token was issued to the client
 * making the request and refuses the request otherwise (the token stays
 * valid). The library's default silently ignores it for public clients.
 */
export async function revocationAllowedPolicy (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }): Promise<boolean> {
  if (token.clientId !== client.clientId) throw new errors.UnauthorizedClient(NOT_YOURS)
  return true
}

/**
 * RFC 7009 for JWT access tokens. The library answers `unsupported_token_type`
 * for structured tokens; here a JWT signed by this server for the calling
 * client gets its `jti` recorded in `oauth_revoked_tokens` until its `exp`
 * (the MCP endpoint checks that denylist), and the answer is 200. A token
 * issued to another client is refused with 400 `unauthorized_client` and stays
 * valid (RFC 7009 2.1); one that does not verify is ignored, still with 200,
 * as RFC 7009 prescribes for invalid tokens.
 */
export interface JwtRevocationOptions {
  pool: pg.Pool
  issuer: string
  /** The published keys (private parts are ignored). */
  keys: JsonWebKey[]
}

export function revokeJwtAccessTokens (options: JwtRevocationOptions): KoaMiddleware {
  const publicKeys = new Map(options.keys.map((jwk) => [jwk.kid as string, createPublicKey({ key: publicPart(jwk), format: 'jwk' })]))

  return async (ctx, next) => {
    await next()
    if (ctx.oidc?.route !== 'revocation' || ctx.status !== 400) return
    if ((ctx.body as { error?: string } | undefined)?.error !== 'unsupported_token_type') return
    const token = ctx.oidc.params?.token
    const clientId = ctx.oidc.client?.clientId
    if (typeof token !== 'string' || typeof clientId !== 'string') return

    const claims = verifiedClaims(token, publicKeys)
    const ours = claims !== undefined && claims.iss === options.issuer
    if (ours && claims.client_id !== clientId) {
      ctx.status = 400
      ctx.body = { error: 'unauthorized_client', error_description: NOT_YOURS }
      return
    }
    if (ours && typeof claims.jti === 'string' && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now()) {
      await options.pool.query(
        'INSERT INTO oauth_revoked_tokens (jti, expires_at) VALUES ($1, to_timestamp($2)) ON CONFLICT (jti) DO NOTHING',
        [claims.jti, claims.exp]
      )
    }
    ctx.status = 200
    ctx.body = ''
  }
}

function verifiedClaims (token: string, keys: Map<string, ReturnType<typeof createPublicKey>>): Record<string, unknown> | undefined {
  const [header, payload, signature] = token.split('.')
  if (header === undefined || payload === undefined || signature === undefined) return undefined
  try {
    const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string, kid?: string }
    const key = kid === undefined ? undefined : keys.get(kid)
    if (alg !== 'RS256' || key === undefined) return undefined
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return undefined
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

function publicPart (jwk: JsonWebKey): JsonWebKey {
  return { kty: jwk.kty, n: jwk.n, e: jwk.e }
}
