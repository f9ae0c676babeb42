import type Provider from 'oidc-provider'
import type { KoaContextWithOIDC } from 'oidc-provider'
import * as authorizationCodeGrant from 'oidc-provider/lib/actions/grants/authorization_code.js'
import * as refreshTokenGrant from 'oidc-provider/lib/actions/grants/refresh_token.js'
import * as grantHelpers from 'oidc-provider/lib/helpers/grants.js'

/**
 * The library's own grant handlers, bound the way it binds them itself
 * (lib/helpers/initialize_app.js), so that this folder can wrap them and
 * re-register the wrapper under the same grant type.
 */
export type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>

interface GrantModule {
  handler: (provider: Provider, helpers: Record<string, unknown>, ctx: KoaContextWithOIDC) => Promise<void>
  parameters: Set<string>
  grantType: string
}

export const builtInGrants = {
  authorizationCode: authorizationCodeGrant as GrantModule,
  refreshToken: refreshTokenGrant as GrantModule
}

export function wrapBuiltInGrant (
  provider: Provider,
  grant: GrantModule,
  wrap: (original: GrantHandler) => GrantHandler
): void {
  const helpers = Object.fromEntries(
    Object.entries(grantHelpers as Record<string, (...args: unknown[]) => unknown>)
      .filter(([, helper]) => typeof helper === 'function')
      .map(([name, helper]) => [name, helper.bind(undefined, provider)])
  )
  const original: GrantHandler = (ctx) => grant.handler(provider, helpers, ctx)
  // Same parameters as the built-in registration with resourceIndicators enabled.
  provider.registerGrantType(grant.grantType, wrap(original), new Set([...grant.parameters, 'resource']), new Set(['resource']))
}
