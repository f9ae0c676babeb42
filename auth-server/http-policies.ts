import { createHash } from 'node:crypto'
import type { KoaMiddleware } from 'oidc-provider'

/**
 * Response rewrites around the library's own routes: RFC 8414 metadata fields
 * it cannot be configured to produce, and CORS on the registration route
 * (the library sends CORS itself on discovery, JWKS, token and revocation).
 */
export function rewriteMetadata (): KoaMiddleware {
  return async (ctx, next) => {
    await next()
    if (ctx.oidc?.route !== 'discovery' || ctx.status !== 200 || typeof ctx.body !== 'object' || ctx.body === null) return
    const body = ctx.body as Record<string, unknown>
    // The library always lists `openid` (its claims group is mandatory); this server only serves `mcp`.
    body.scopes_supported = ['mcp']
    body.response_types_supported = ['code']
    body.grant_types_supported = ['authorization_code', 'refresh_token']
    body.code_challenge_methods_supported = ['S256']
    body.token_endpoint_auth_methods_supported = ['none']
    body.revocation_endpoint_auth_methods_supported = ['none']
    body.response_modes_supported = ['query']
    // No ID tokens are issued (auth-server/scopes.ts): none of OpenID Connect's ID token fields apply.
    for (const key of ['claims_supported', 'claims_parameter_supported', 'claim_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']) {
      delete body[key]
    }
    delete body.token_endpoint_auth_signing_alg_values_supported
  }
}

export function registrationCors (registrationPath: string): KoaMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== registrationPath) return next()
    ctx.set('Access-Control-Allow-Origin', '*')
    ctx.set('Vary', 'Origin')
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST')
      ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization')
      ctx.set('Access-Control-Max-Age', '3600')
      ctx.status = 204
      return
    }
    await next()
  }
}

/**
 * Cache headers on the JWKS: fresh for `maxAgeSeconds`, then revalidated with
 * its ETag (a 304 when the keys are the same). Verifiers (the portal's /api/mcp
 * on every replica) keep it that long, and fetch it early only when a token
 * names a key they do not have (a rotation).
 */
export function jwksCaching (maxAgeSeconds: number): KoaMiddleware {
  return async (ctx, next) => {
    await next()
    if (ctx.oidc?.route !== 'jwks' || ctx.status !== 200 || typeof ctx.body !== 'object' || ctx.body === null) return
    ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}, must-revalidate`)
    ctx.etag = createHash('sha256').update(JSON.stringify(ctx.body)).digest('base64url').slice(0, 32)
    if (ctx.fresh) {
      ctx.status = 304
      ctx.body = null
    }
  }
}
