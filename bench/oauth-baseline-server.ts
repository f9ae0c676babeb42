/**
 * Token-endpoint baseline: bare oidc-provider 9.13.3 with its own in-memory
 * adapter, one static public client (token_endpoint_auth_method none, PKCE
 * S256), resource indicators giving RS256 `at+jwt` access tokens for one
 * audience plus a refresh token, as ours does; no extra claims, no database.
 *
 * The in-memory adapter's store holds 1,000 entries by default: a run's
 * pre-minted codes would evict one another. This server builds the same
 * adapter class over the library's own LRU with room for every code.
 *
 * Started by bench/run.ts; reports its port and client id, and mints codes on
 * the `mint` call (see bench/oauth-codes.ts).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js'
import LRU from 'oidc-provider/lib/helpers/lru.js'
import { serveUntilStopped } from './child-process.ts'
import { ISSUER, MAX_CODES_PER_RUN, REDIRECT_URI, RESOURCE, mintCodes, type MintRequest } from './oauth-codes.ts'

const CLIENT_ID = 'bench-agent'
/** Per code: its Grant, the code, the grant's member index and, once redeemed, a refresh token; two runs. */
const STORE_CAPACITY = MAX_CODES_PER_RUN * 4 * 2 + 10_000

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' }
const store = new LRU({ maxSize: STORE_CAPACITY })

const provider = new Provider(ISSUER, {
  adapter: (model: string) => new MemoryAdapter(model, store),
  clients: [{
    client_id: CLIENT_ID,
    token_endpoint_auth_method: 'none',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code']
  }],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  // The library's default account model, without its "you MUST change it" warning: subject only, no claims.
  findAccount: async (_ctx: unknown, accountId: string) => ({ accountId, claims: async () => ({ sub: accountId }) }),
  scopes: ['mcp'],
  responseTypes: ['code'],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => RESOURCE,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({
        scope: 'mcp',
        audience: RESOURCE,
        accessTokenTTL: 900,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } }
      })
    }
  },
  issueRefreshToken: async () => true,
  ttl: { AccessToken: 900, AuthorizationCode: 60, RefreshToken: 30 * 24 * 60 * 60, Grant: 365 * 24 * 60 * 60, Interaction: 600, Session: 86_400 }
})
provider.on('server_error', (_ctx: unknown, error: Error) => console.error(`oauth baseline error: ${error.stack ?? error.message}`))

const server = createServer(provider.callback())
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))

serveUntilStopped({ port: (server.address() as AddressInfo).port, clientId: CLIENT_ID }, async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}, {
  mint: (request: MintRequest) => mintCodes(provider, request)
})
