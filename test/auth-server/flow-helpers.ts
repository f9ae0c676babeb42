import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import * as oauth from 'oauth4webapi'
import { createFindAccount } from '../../auth-server/account.ts'
import { createSigningKeyStore } from '../../auth-server/keys.ts'
import { createProvider } from '../../auth-server/provider.ts'
import { loadConfig } from '../../config/env.ts'
import { signup, type SignedUp } from '../support/accounts.ts'
import { build, TEST_JWT_SECRET } from '../support/build.ts'
import { createTestDatabase } from '../support/database.ts'
import { tempDir } from './helpers.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface FlowServers {
  /** The auth server's own origin, which is also BASE_URL (the issuer) and the portal's BASE_URL. */
  authUrl: string
  portalUrl: string
  pool: pg.Pool
  person: SignedUp
  personName: string
}

/**
 * The portal app and the auth server on real ports, one database, one JWT_SECRET.
 * The portal's BASE_URL is the auth server's origin, so its login page hands back to it.
 */
export async function startFlowServers (t: Teardown, authEnv: Record<string, unknown> = {}): Promise<FlowServers> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => { res.statusCode = 503; res.end() }
  const server = createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const authUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const databaseUrl = await createTestDatabase(t)
  const { app } = await build(t, { databaseUrl, env: { BASE_URL: authUrl, LOGIN_LIMIT_PER_IP: 1000 } })
  const portalUrl = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1')
  const person = await signup(app)

  const dataDir = await tempDir(t)
  const config = loadConfig({
    DATABASE_URL: databaseUrl, BASE_URL: authUrl, DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET,
    PORTAL_LOGIN_URL: `${portalUrl}/login`, PORTAL_API_URL: portalUrl, ...authEnv
  })
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  pool.on('error', () => {})
  t.teardown(() => pool.end())
  const keys = await createSigningKeyStore({ dataDir, jwtSecret: TEST_JWT_SECRET }).load()
  const provider = createProvider({ config, pool, keys, findAccount: createFindAccount(pool) })
  handler = provider.callback()
  const name = await pool.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [person.user.id])
  return { authUrl, portalUrl, pool, person, personName: name.rows[0]?.name ?? '' }
}

/** A browser's cookies, by origin (paths ignored: sending extra cookies does not change these flows). */
export function createBrowser () {
  const jars = new Map<string, Map<string, string>>()
  const jarOf = (url: string) => {
    const origin = new URL(url).origin
    let jar = jars.get(origin)
    if (jar === undefined) jars.set(origin, jar = new Map())
    return jar
  }

  return {
    jarOf,
    /** One request, no redirect following; Set-Cookie kept. */
    async request (url: string, init: RequestInit = {}): Promise<Response> {
      const jar = jarOf(url)
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
      const headers = new Headers(init.headers)
      if (cookie !== '') headers.set('cookie', cookie)
      const response = await fetch(url, { ...init, headers, redirect: 'manual' })
      for (const line of response.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';')
        const index = pair.indexOf('=')
        const name = pair.slice(0, index).trim()
        const value = pair.slice(index + 1).trim()
        const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now()))
        if (expired || value === '') jar.delete(name)
        else jar.set(name, value)
      }
      return response
    },
    async submit (url: string, form: Record<string, string>): Promise<Response> {
      return await this.request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) })
    }
  }
}

export type Browser = ReturnType<typeof createBrowser>

export function location (response: Response, base: string): string {
  const value = response.headers.get('location')
  if (value === null) throw new Error(`no Location on a ${response.status} from ${response.url}: ${response.headers.get('content-type')}`)
  return new URL(value, base).href
}

export function hiddenField (html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
  if (match === null) throw new Error(`no hidden field ${name}`)
  return match[1] as string
}

export const insecure = { [oauth.allowInsecureRequests]: true }

export interface AgentClient {
  as: oauth.AuthorizationServer
  client: oauth.Client
  redirectUri: string
}

/** Discovery and dynamic registration, as an MCP agent would do them. */
export async function registerAgent (authUrl: string, clientName = 'Flow agent'): Promise<AgentClient> {
  const issuer = new URL(authUrl)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
  const redirectUri = 'http://127.0.0.1:7777/cb'
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, {
    redirect_uris: [redirectUri], client_name: clientName, token_endpoint_auth_method: 'none'
  }, insecure)) as oauth.Client
  return { as, client, redirectUri }
}

export interface Authorization { url: string, verifier: string, state: string }

export async function authorizationUrl (agent: AgentClient, authUrl: string): Promise<Authorization> {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(agent.as.authorization_endpoint as string)
  url.search = new URLSearchParams({
    client_id: agent.client.client_id, redirect_uri: agent.redirectUri, response_type: 'code', scope: 'mcp', state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: `${authUrl}/api/mcp`
  }).toString()
  return { url: url.href, verifier, state }
}

/** The portal's login page, as a person fills it in: answers the handoff URL the portal redirects to (not followed). */
export async function loginAtPortal (browser: Browser, servers: FlowServers, loginUrl: string): Promise<string> {
  const page = await browser.request(loginUrl)
  const html = await page.text()
  const transaction = new URL(loginUrl).searchParams.get('oauth_transaction') ?? ''
  const posted = await browser.submit(`${servers.portalUrl}/login`, {
    email: servers.person.email, password: servers.person.password, csrf: hiddenField(html, 'csrf'), oauth_transaction: transaction
  })
  if (posted.status !== 303) throw new Error(`login answered ${posted.status}: ${await posted.text()}`)
  return location(posted, servers.portalUrl)
}

/** From /oauth/authorize through the portal's login page to the handoff URL (not followed). */
export async function signInUpToHandoff (browser: Browser, servers: FlowServers, authorizeUrl: string): Promise<string> {
  const toLogin = await browser.request(authorizeUrl)
  if (toLogin.status !== 303) throw new Error(`authorize answered ${toLogin.status}`)
  return await loginAtPortal(browser, servers, location(toLogin, authorizeUrl))
}

/** Follows the 303s from `url` while they stay on `origin`; returns the last response and its URL. */
export async function followOn (browser: Browser, url: string, origin: string): Promise<{ response: Response, url: string }> {
  let current = url
  for (let hops = 0; hops < 10; hops++) {
    const response = await browser.request(current)
    if (response.status !== 303 && response.status !== 302) return { response, url: current }
    const next = location(response, current)
    if (new URL(next).origin !== origin) return { response, url: current }
    await response.arrayBuffer()
    current = next
  }
  throw new Error('redirect loop')
}
