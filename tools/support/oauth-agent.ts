/**
 * An MCP agent's side of the OAuth flow (oauth4webapi: discovery, dynamic
 * registration, PKCE, token requests) and the person's side in a cookie-keeping
 * browser (cookie-browser.ts): login page, handoff, consent.
 * Works against any issuer: the single public origin (test/support/single-origin.ts,
 * tools/mcp-conformance.ts) or the auth server's own origin (test/auth-server/flow-helpers.ts).
 */
import * as oauth from 'oauth4webapi'
import { createBrowser, formAction, hiddenField, location, type Browser } from './cookie-browser.ts'

/** Who signs in on the login page. */
export interface SignsIn { person: { email: string, password: string } }

/** The tests talk plain http on loopback. */
export const insecure = { [oauth.allowInsecureRequests]: true }

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:7777/cb'

export interface AgentClient {
  as: oauth.AuthorizationServer
  client: oauth.Client
  redirectUri: string
}

/** Discovery and dynamic registration, as an MCP agent would do them. */
export async function registerAgent (issuerUrl: string, clientName = 'Flow agent', redirectUri = DEFAULT_REDIRECT_URI): Promise<AgentClient> {
  const issuer = new URL(issuerUrl)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
  const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, {
    redirect_uris: [redirectUri], client_name: clientName, token_endpoint_auth_method: 'none'
  }, insecure)) as oauth.Client
  return { as, client, redirectUri }
}

export interface Authorization { url: string, verifier: string, state: string }

/** The authorize URL with PKCE S256, scope mcp and the MCP resource of `issuerUrl`. */
export async function authorizationUrl (agent: AgentClient, issuerUrl: string): Promise<Authorization> {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(agent.as.authorization_endpoint as string)
  url.search = new URLSearchParams({
    client_id: agent.client.client_id, redirect_uri: agent.redirectUri, response_type: 'code', scope: 'mcp', state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: `${issuerUrl}/api/mcp`
  }).toString()
  return { url: url.href, verifier, state }
}

/** The portal's login page, as a person fills it in: answers the handoff URL the portal redirects to (not followed). */
export async function loginAtPortal (browser: Browser, servers: SignsIn, loginUrl: string): Promise<string> {
  const page = await browser.request(loginUrl)
  const html = await page.text()
  const transaction = new URL(loginUrl).searchParams.get('oauth_transaction') ?? ''
  const posted = await browser.submit(formAction(html, loginUrl), {
    email: servers.person.email, password: servers.person.password, csrf: hiddenField(html, 'csrf'), oauth_transaction: transaction
  })
  if (posted.status !== 303) throw new Error(`login answered ${posted.status}: ${await posted.text()}`)
  return location(posted, loginUrl)
}

/** From /oauth/authorize through the portal's login page to the handoff URL (not followed). */
export async function signInUpToHandoff (browser: Browser, servers: SignsIn, authorizeUrl: string): Promise<string> {
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

export interface ConsentPage {
  url: string
  /** The interaction id (`oauth_transaction`). */
  uid: string
  csrf: string
  html: string
  headers: Headers
}

/** Signs in and follows the handoff to the consent page. */
export async function reachConsent (browser: Browser, servers: SignsIn, authorizeUrl: string): Promise<ConsentPage> {
  const handoffUrl = await signInUpToHandoff(browser, servers, authorizeUrl)
  const { response, url } = await followOn(browser, handoffUrl, new URL(handoffUrl).origin)
  if (response.status !== 200) throw new Error(`consent page answered ${response.status} at ${url}`)
  const html = await response.text()
  return { url, uid: new URL(url).searchParams.get('oauth_transaction') ?? '', csrf: hiddenField(html, 'csrf'), html, headers: response.headers }
}

/**
 * What the person picks on the consent page: `level` (the page's default is read; these helpers
 * pick administer, which the auth server lowers to what the person's role allows) and `instance`.
 */
export interface ConsentChoice { level?: string, instances?: number[] }

/** Presses Allow or Deny; answers the callback URL the browser is sent to (not requested). */
export async function decide (browser: Browser, consent: ConsentPage, decision: 'allow' | 'deny', choice: ConsentChoice = { level: 'administer' }): Promise<URL> {
  const fields = new URLSearchParams({ oauth_transaction: consent.uid, csrf: consent.csrf, decision })
  if (choice.level !== undefined) fields.set('level', choice.level)
  if (choice.instances !== undefined) {
    fields.set('instances', 'some')
    for (const id of choice.instances) fields.append('instance', String(id))
  }
  const posted = await browser.submit(formAction(consent.html, consent.url), fields)
  if (posted.status !== 303) throw new Error(`consent answered ${posted.status}: ${await posted.text()}`)
  const origin = new URL(consent.url).origin
  let target = location(posted, consent.url)
  if (new URL(target).origin === origin) {
    const { response, url } = await followOn(browser, target, origin)
    target = location(response, url)
  }
  return new URL(target)
}

/** The code from the callback, redeemed with the PKCE verifier. */
export async function exchangeCode (agent: AgentClient, callback: URL, authorization: Authorization): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(agent.as, agent.client, callback, authorization.state)
  return await oauth.processAuthorizationCodeResponse(agent.as, agent.client,
    await oauth.authorizationCodeGrantRequest(agent.as, agent.client, oauth.None(), params, agent.redirectUri, authorization.verifier, insecure))
}

/**
 * The whole flow in one call, for tests that need a connected agent rather than the
 * flow itself: register, sign in as `servers.person`, Allow, redeem the code.
 */
export async function connectAgent (issuerUrl: string, servers: SignsIn, clientName = 'Connected agent'): Promise<{ agent: AgentClient, tokens: oauth.TokenEndpointResponse }> {
  const agent = await registerAgent(issuerUrl, clientName)
  const authorization = await authorizationUrl(agent, issuerUrl)
  const browser = createBrowser()
  const callback = await decide(browser, await reachConsent(browser, servers, authorization.url), 'allow')
  return { agent, tokens: await exchangeCode(agent, callback, authorization) }
}
