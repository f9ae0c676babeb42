import { randomBytes } from 'node:crypto'
import { errors, type KoaContextWithOIDC } from 'oidc-provider'
import { LOOPBACK_HOSTNAMES } from '../lib/loopback.ts'

/**
 * Public clients only: every client authenticates with `none` and no secret;
 * redirect URIs are https, or http on localhost/127.0.0.1 (any port), never
 * with a fragment.
 */
export function redirectUriProblem (uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'redirect_uris must only contain strings'
  const parsed = URL.parse(uri)
  if (parsed === null) return `redirect_uris must only contain valid URLs (${uri})`
  if (uri.includes('#')) return `redirect_uris must not contain a fragment (${uri})`
  if (parsed.protocol === 'https:') return undefined
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(parsed.hostname)) return undefined
  return `redirect_uris must use https, or http on localhost or 127.0.0.1 (${uri})`
}

/**
 * Runs on the raw registration body before the library decides whether to mint
 * a secret (it does so from the body, not from the validated metadata).
 * Wired as `features.registration.idFactory`, the first hook given the body.
 */
export function enforcePublicClient (ctx: KoaContextWithOIDC): string {
  const body = ctx.oidc.body as Record<string, unknown> | undefined
  if (body !== undefined) {
    const method = body.token_endpoint_auth_method
    if (method === undefined) body.token_endpoint_auth_method = 'none'
    else if (method !== 'none') {
      throw new errors.InvalidClientMetadata('token_endpoint_auth_method must be none: only public clients (PKCE) are supported')
    }
  }
  return randomBytes(16).toString('base64url')
}

/** `extraClientMetadata` for stored and registered clients alike; messages starting with redirect_uris map to invalid_redirect_uri. */
export const clientMetadataPolicy = {
  properties: ['redirect_uris'],
  validator (_ctx: unknown, key: string, value: unknown, metadata: Record<string, unknown>): void {
    if (key !== 'redirect_uris') return
    if (metadata.token_endpoint_auth_method === undefined) metadata.token_endpoint_auth_method = 'none'
    if (!Array.isArray(value)) return // the library reports the missing/invalid array itself
    for (const uri of value) {
      const problem = redirectUriProblem(uri)
      if (problem !== undefined) throw new errors.InvalidClientMetadata(problem)
    }
  }
}

/** RFC 8252 7.3: a loopback redirect URI matches on any port, whatever the application_type. */
export function allowLoopbackOnAnyPort (Client: { prototype: Record<string, any> }): void {
  const exact = Client.prototype.redirectUriAllowed as (this: { redirectUris: string[] }, value: string) => boolean
  Client.prototype.redirectUriAllowed = function (this: { redirectUris: string[] }, value: string): boolean {
    if (exact.call(this, value)) return true
    const wanted = withoutLoopbackPort(value)
    return wanted !== undefined && this.redirectUris.some((uri) => withoutLoopbackPort(uri) === wanted)
  }
}

function withoutLoopbackPort (uri: string): string | undefined {
  const parsed = URL.parse(uri)
  if (parsed === null || parsed.protocol !== 'http:' || !LOOPBACK_HOSTNAMES.has(parsed.hostname)) return undefined
  parsed.port = ''
  return parsed.href
}
