import { errors, type KoaContextWithOIDC } from 'oidc-provider'

/** The only scope this server grants. It is an MCP authorization server, not an OpenID Provider. */
export const MCP_SCOPE = 'mcp'

/**
 * The `scope` of an authorization request, reduced to what can be granted.
 * Unknown scopes are dropped, `openid` with them (so no ID token is ever
 * issued); when something was asked and nothing is left, the request fails
 * with `invalid_scope`, sent back to the client's redirect URI. A request
 * without `scope` gets the default, `mcp` (RFC 6749 3.3).
 *
 * Wired as the `extraParams` validator of `scope`: the library runs these
 * after it has checked the client and the redirect URI, and before the
 * interaction is saved, so the reduced scope is the one the code carries.
 */
export async function reduceToGrantableScope (ctx: KoaContextWithOIDC, value: unknown): Promise<void> {
  const requested = typeof value === 'string' ? value.split(' ').filter((scope) => scope !== '') : []
  if (requested.length === 0) {
    ctx.oidc.params!.scope = MCP_SCOPE
    return
  }
  if (!requested.includes(MCP_SCOPE)) {
    throw new errors.InvalidScope(`none of the requested scopes can be granted: this server grants "${MCP_SCOPE}" only`, requested.join(' '))
  }
  ctx.oidc.params!.scope = MCP_SCOPE
}
