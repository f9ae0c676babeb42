import type { AppConfig } from '../config/env.ts'
import type { FindAccount } from './account.ts'
import type { AdapterFactory } from './adapter.ts'
import type { ClientIdMetadataDocuments } from './client-id-metadata.ts'
import { clientMetadataPolicy, enforcePublicClient } from './client-policy.ts'
import { interactionUrl, renderInteractionError } from './interactions.ts'
import type { SigningKeys } from './keys.ts'
import { rotateRefreshToken } from './refresh-grace.ts'
import { resourceIndicatorsFeature } from './resource.ts'
import { revocationAllowedPolicy } from './revocation.ts'
import { MCP_SCOPE, reduceToGrantableScope } from './scopes.ts'

export type AuthServerConfig = Pick<AppConfig,
  'BASE_URL' | 'PORTAL_LOGIN_URL' | 'PRODUCT_NAME' | 'OAUTH_ACCESS_TOKEN_TTL_SECONDS'
  | 'OAUTH_REFRESH_TOKEN_TTL_SECONDS' | 'OAUTH_REFRESH_GRACE_SECONDS' | 'PORTAL_API_URL' | 'HANDOFF_SECRET' | 'CLIENT_METADATA_ALLOWED_HOSTS' | 'CLIENT_METADATA_TIMEOUT_SECONDS'>

export interface ConfigurationDeps {
  config: AuthServerConfig
  adapter: AdapterFactory
  keys: SigningKeys
  findAccount: FindAccount
  cookieKeys: string[]
  mcpResource: string
  clientIdMetadata: ClientIdMetadataDocuments
}

export const routes = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  jwks: '/.well-known/jwks.json',
  registration: '/api/oauth/register'
}

const ONE_YEAR = 365 * 24 * 60 * 60
const INTERACTION_TTL = 10 * 60

/** oidc-provider's configuration object: public clients, PKCE S256, scope `mcp`, JWT access tokens. */
export function buildConfiguration (deps: ConfigurationDeps): Record<string, unknown> {
  const { config, findAccount } = deps
  return {
    adapter: deps.adapter,
    jwks: deps.keys.jwks,
    cookies: { keys: deps.cookieKeys },
    findAccount,
    routes,
    scopes: [MCP_SCOPE],
    extraParams: { scope: reduceToGrantableScope },
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none'
    },
    extraClientMetadata: clientMetadataPolicy,
    pkce: { required: () => true },
    // Every outbound request of the library (client metadata documents) goes through lib/outbound-url.ts.
    fetch: deps.clientIdMetadata.fetch,
    // Browser-based public clients call token/revocation from any origin; no cookies are involved there.
    clientBasedCORS: () => true,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, idFactory: enforcePublicClient },
      revocation: { enabled: true, allowedPolicy: revocationAllowedPolicy },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      clientIdMetadataDocument: deps.clientIdMetadata.feature,
      resourceIndicators: resourceIndicatorsFeature({
        mcpResource: deps.mcpResource,
        accessTokenTtlSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
        signingKid: deps.keys.signingKid
      })
    },
    interactions: { url: interactionUrl({ baseUrl: config.BASE_URL, portalLoginUrl: config.PORTAL_LOGIN_URL, interactionTtlSeconds: INTERACTION_TTL }) },
    renderError: renderInteractionError,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed: (type: string) => boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken,
    // Tokens outlive the short browser session used to sign in and consent.
    expiresWithSession: async () => false,
    // grant_id lets /api/mcp refuse the tokens of a disconnected agent (its grant is gone) in the same query as the user check.
    extraTokenClaims: async (ctx: unknown, token: { kind: string, accountId?: string, grantId?: string }) => {
      if (token.kind !== 'AccessToken' || token.accountId === undefined) return undefined
      const grant = token.grantId === undefined ? {} : { grant_id: token.grantId }
      const account = await findAccount(ctx, token.accountId)
      if (account === undefined) return grant
      const { email, name } = await account.claims()
      return { ...grant, ...(email === undefined ? {} : { email }), ...(name === undefined ? {} : { name }) }
    },
    ttl: {
      AccessToken: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: config.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      // The connection's absolute lifetime; refresh tokens expire sooner when unused.
      Grant: ONE_YEAR,
      Interaction: INTERACTION_TTL,
      Session: 24 * 60 * 60
    }
  }
}
