import { randomBytes } from 'node:crypto'
import { errors, type KoaContextWithOIDC } from 'oidc-provider'

/**
 * Public clients only: every client authenticates with `none` and no secret;
 * redirect URIs are https, or http on localhost/127.0.0.1/[::1] (any port),
 * never with a fragment.
 */
export function redirectUriProblem (uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'redirect_uris must only contain strings'
  const parsed = URL.parse(uri)
  if (parsed === null) return `redirect_uris must only contain valid URLs (${uri})`
  if (uri.includes('#')) return `redirect_uris must not contain a fragment (${uri})`
  if (parsed.protocol === 'https:') return undefined
  // Written as such, not merely resolving there: matching is by string (see redirectUriMatches).
  if (parsed.protocol === 'http:' && withoutLoopbackPort(uri) !== undefined) return undefined
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

/**
 * RFC 8252 7.3 and RFC 9700 4.1.3: a redirect URI matches its registered value
 * as a string, except that a loopback one (http on localhost, 127.0.0.1 or
 * [::1]) may name any port. Nothing is normalised: `/x/../cb`, `127.1` or
 * `0x7f.0.0.1` are other strings, so they are refused (the library then
 * renders its error page instead of redirecting). Replaces the library's check
 * for every application_type.
 */
export function allowLoopbackOnAnyPort (Client: { prototype: Record<string, any> }): void {
  Client.prototype.redirectUriAllowed = function (this: { redirectUris: string[] }, value: string): boolean {
    return redirectUriMatches(value, this.redirectUris)
  }
}

export function redirectUriMatches (requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true
  const wanted = withoutLoopbackPort(requested)
  return wanted !== undefined && registered.some((uri) => withoutLoopbackPort(uri) === wanted)
}

const LOOPBACK_AUTHORITY = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(?::([0-9]{1,5}))?(?=[/?]|$)/

/** The raw string with its port cut out, when it is an http loopback URI with a valid port (or none). */
export function withoutLoopbackPort (uri: string): string | undefined {
  const match = LOOPBACK_AUTHORITY.exec(uri)
  if (match === null) return undefined
  if (match[2] !== undefined && Number(match[2]) > 65535) return undefined
  return `http://${match[1]}${uri.slice(match[0].length)}`
}
