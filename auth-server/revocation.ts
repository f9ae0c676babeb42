import { createPublicKey, verify, type JsonWebKey } from 'node:crypto'
import type pg from 'pg'
import type { KoaMiddleware } from 'oidc-provider'

/**
 * RFC 7009 for JWT access tokens. The library answers `unsupported_token_type`
 * for structured tokens; here a JWT signed by this server for the calling
 * client gets its `jti` recorded in `oauth_revoked_tokens` until its `exp`
 * (the MCP endpoint checks that denylist), and the answer is 200. A token that
 * does not verify or belongs to another client is ignored, still with 200,
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
    if (claims !== undefined && claims.iss === options.issuer && claims.client_id === clientId &&
        typeof claims.jti === 'string' && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now()) {
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
