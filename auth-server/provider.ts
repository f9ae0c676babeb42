import type pg from 'pg'
import Provider from 'oidc-provider'
import type { AppConfig } from '../config/env.ts'
import { deriveKey } from '../lib/secrets.ts'
import type { FindAccount } from './account.ts'
import { createPostgresAdapter } from './adapter.ts'
import { createCodePrefetch } from './code-prefetch.ts'
import { createHeldConsume } from './held-consume.ts'
import { parseAllowHosts } from '../lib/outbound-url.ts'
import { builtInGrants, wrapBuiltInGrant } from './built-in-grants.ts'
import { clientIdMetadataDocuments } from './client-id-metadata.ts'
import { allowLoopbackOnAnyPort } from './client-policy.ts'
import { buildConfiguration, routes, type AuthServerConfig } from './configuration.ts'
import { jwksCaching, registrationCors, rewriteMetadata } from './http-policies.ts'
import { interactionRoutes } from './interactions.ts'
import type { SigningKeys } from './keys.ts'
import { createRefreshGrace } from './refresh-grace.ts'
import { mcpResourceUrl, normalizeAuthorizeResource, normalizeResource } from './resource.ts'
import { revokeJwtAccessTokens } from './revocation.ts'

export interface ProviderDeps {
  /** JWT_SECRET must be resolved (it keys the cookies). */
  config: AuthServerConfig & Pick<AppConfig, 'JWT_SECRET'>
  pool: pg.Pool
  keys: SigningKeys
  findAccount: FindAccount
  /** Test only: a certificate to trust for outbound requests (a local HTTPS server's self-signed one). */
  outboundCa?: string
}

/** How long verifiers may keep the published keys before revalidating them (a new kid is fetched at once anyway). */
export const JWKS_MAX_AGE_SECONDS = 300

/** The configured oidc-provider instance (a Koa app: `provider.callback()` serves it). */
export function createProvider (deps: ProviderDeps): Provider {
  const { config, pool, keys } = deps
  if (config.JWT_SECRET === undefined) throw new Error('JWT_SECRET must be resolved before the auth server is built')
  const mcpResource = mcpResourceUrl(config.BASE_URL)
  const prefetch = createCodePrefetch()
  const heldConsume = createHeldConsume()
  const adapter = createPostgresAdapter(pool, { refreshGraceSeconds: config.OAUTH_REFRESH_GRACE_SECONDS, prefetch, heldConsume })

  const provider = new Provider(config.BASE_URL, buildConfiguration({
    config,
    adapter,
    keys,
    findAccount: async (ctx, id) => {
      const kept = prefetch.account(id)
      return kept.found ? kept.account : deps.findAccount(ctx, id)
    },
    cookieKeys: [deriveKey(config.JWT_SECRET, 'oidc-cookies').toString('base64url')],
    mcpResource,
    clientIdMetadata: clientIdMetadataDocuments({
      outbound: { allowHosts: parseAllowHosts(config.CLIENT_METADATA_ALLOWED_HOSTS), ...(deps.outboundCa === undefined ? {} : { extraCa: deps.outboundCa }) },
      timeoutMs: config.CLIENT_METADATA_TIMEOUT_SECONDS * 1000
    })
  }))
  provider.proxy = true

  allowLoopbackOnAnyPort(provider.Client)
  // The code's consume waits for the refresh token, to be stored with it in one statement (held-consume.ts).
  const consumeCode = async (id: string) => adapter('AuthorizationCode').consume(id)
  wrapBuiltInGrant(provider, builtInGrants.authorizationCode, (original) => async (ctx) => {
    ctx.oidc.params.resource = normalizeResource(ctx.oidc.params.resource, mcpResource)
    await heldConsume.around(async () => original(ctx), consumeCode)
  })
  wrapBuiltInGrant(provider, builtInGrants.refreshToken, (original) => {
    const withGrace = createRefreshGrace({ pool, graceSeconds: config.OAUTH_REFRESH_GRACE_SECONDS })(original)
    return async (ctx) => {
      ctx.oidc.params.resource = normalizeResource(ctx.oidc.params.resource, mcpResource)
      await withGrace(ctx)
    }
  })

  provider.use(registrationCors(routes.registration))
  provider.use(normalizeAuthorizeResource(routes.authorization, mcpResource))
  provider.use(rewriteMetadata())
  provider.use(jwksCaching(JWKS_MAX_AGE_SECONDS))
  provider.use(revokeJwtAccessTokens({ pool, issuer: config.BASE_URL, keys: keys.jwks.keys }))
  provider.use(interactionRoutes({
    provider,
    pool,
    baseUrl: config.BASE_URL,
    product: config.PRODUCT_NAME,
    jwtSecret: config.JWT_SECRET,
    handoffSecret: config.HANDOFF_SECRET,
    portalApiUrl: config.PORTAL_API_URL,
    mcpResource,
    authorizePath: routes.authorization
  }))
  return provider
}
