/**
 * The MCP SDK's OAuth client side (`OAuthClientProvider`) for tests: what a desktop
 * agent keeps (registration, tokens, PKCE verifier) held in memory, and its
 * "open the browser" step played by the person in a cookie-keeping browser
 * (test/support/cookie-browser.ts): login page, handoff, consent, Allow.
 *
 *   const provider = new BrowserOAuthProvider(so, 'SDK agent')
 *   const transport = new StreamableHTTPClientTransport(new URL(so.mcpResource), { authProvider: provider })
 *   await client.connect(transport)                 // rejects with UnauthorizedError, person signed in meanwhile
 *   await transport.finishAuth(provider.authorizationCode())
 *
 * The redirect URI is a loopback URL nobody listens on: the browser is stopped at
 * the callback redirect and the code read from its Location, as the agent's own
 * callback server would read it.
 */
import { randomBytes } from 'node:crypto'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import { createBrowser } from './cookie-browser.ts'
import { decide, reachConsent, type SignsIn } from './oauth-agent.ts'

export class BrowserOAuthProvider implements OAuthClientProvider {
  /** Every authorization URL the SDK sent the person to (one per sign-in). */
  readonly authorizationUrls: URL[] = []
  /** False: the person is not at the keyboard, a sign-in the SDK asks for is not done (the call then fails). */
  interactive = true

  private client: OAuthClientInformationMixed | undefined
  private stored: OAuthTokens | undefined
  private verifier = ''
  private expectedState = ''
  private code: string | undefined
  private discovery: OAuthDiscoveryState | undefined
  private readonly redirect: string
  private readonly signsIn: SignsIn
  readonly clientName: string

  constructor (signsIn: SignsIn, clientName: string, callbackPort = 40_000 + Math.floor(Math.random() * 20_000)) {
    this.signsIn = signsIn
    this.clientName = clientName
    this.redirect = `http://127.0.0.1:${callbackPort}/callback`
  }

  get redirectUrl (): string { return this.redirect }

  get clientMetadata (): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none'
    }
  }

  state (): string {
    this.expectedState = randomBytes(16).toString('base64url')
    return this.expectedState
  }

  clientInformation (): OAuthClientInformationMixed | undefined { return this.client }
  saveClientInformation (information: OAuthClientInformationMixed): void { this.client = information }
  tokens (): OAuthTokens | undefined { return this.stored }
  saveTokens (tokens: OAuthTokens): void { this.stored = tokens }
  saveCodeVerifier (verifier: string): void { this.verifier = verifier }
  codeVerifier (): string { return this.verifier }
  discoveryState (): OAuthDiscoveryState | undefined { return this.discovery }
  saveDiscoveryState (state: OAuthDiscoveryState): void { this.discovery = state }

  invalidateCredentials (scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.client = undefined
    if (scope === 'all' || scope === 'tokens') this.stored = undefined
    if (scope === 'all' || scope === 'verifier') this.verifier = ''
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined
  }

  /** The person's side: sign in on the login page, follow the handoff, press Allow, keep the callback's code. */
  async redirectToAuthorization (authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(authorizationUrl)
    this.code = undefined
    if (!this.interactive) return
    const callback = await allowInBrowser(this.signsIn, authorizationUrl.href)
    if (callback.origin + callback.pathname !== this.redirect) throw new Error(`consent sent the browser to ${callback.href}`)
    if (callback.searchParams.get('state') !== this.expectedState) throw new Error('the callback carries another state')
    const code = callback.searchParams.get('code')
    if (code === null) throw new Error(`no code in the callback: ${callback.search}`)
    this.code = code
  }

  /** The code the last sign-in brought back, for `transport.finishAuth`. */
  authorizationCode (): string {
    if (this.code === undefined) throw new Error('no authorization code: the person has not signed in')
    return this.code
  }

  /** What a token that expired or was tampered with looks like to the server: a JWT whose signature no longer verifies. */
  spoilAccessToken (): string {
    if (this.stored === undefined) throw new Error('no tokens yet')
    const [header, payload, signature = ''] = this.stored.access_token.split('.')
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)
    this.stored = { ...this.stored, access_token: `${header}.${payload}.${flipped}` }
    return this.stored.access_token
  }
}

/** A person opens an agent's authorization URL, signs in and presses Allow: answers the agent's callback URL (not requested). */
export async function allowInBrowser (signsIn: SignsIn, authorizationUrl: string): Promise<URL> {
  const browser = createBrowser()
  return await decide(browser, await reachConsent(browser, signsIn, authorizationUrl), 'allow')
}

/**
 * Waits until what a process has written to `stream` matches `pattern` (bounded):
 * how a test reads the authorization URL a command-line agent prints for the person.
 */
export function waitForOutput (stream: NodeJS.ReadableStream, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const done = (finish: () => void) => { clearTimeout(timer); stream.off('data', onData); stream.off('end', onEnd); finish() }
    const onData = (chunk: Buffer | string) => {
      seen += String(chunk)
      const match = pattern.exec(seen)
      if (match !== null) done(() => resolve(match))
    }
    const onEnd = () => done(() => reject(new Error(`output ended without ${pattern}:\n${seen}`)))
    const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${seen}`))), timeoutMs)
    stream.on('data', onData)
    stream.on('end', onEnd)
  })
}
