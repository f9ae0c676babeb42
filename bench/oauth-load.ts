/**
 * Load on a token endpoint: every request redeems the next pre-minted code
 * with its own PKCE verifier (autocannon rebuilds each request through
 * `setupRequest`). Running out of codes fails the run: it never turns into a
 * quiet stream of 400s.
 */
import autocannon, { type Options, type Result } from 'autocannon'
import { REDIRECT_URI, RESOURCE, type MintedCode } from './oauth-codes.ts'

export interface TokenEndpoint {
  /** Base URL of the server, e.g. http://127.0.0.1:41234 */
  url: string
  path: string
  clientId: string
}

export interface LoadSettings {
  connections: number
  durationSeconds: number
  warmupSeconds: number
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

export function exchangeBody (endpoint: TokenEndpoint, minted: MintedCode): string {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: endpoint.clientId,
    code: minted.code,
    code_verifier: minted.verifier,
    redirect_uri: REDIRECT_URI,
    resource: RESOURCE
  }).toString()
}

/**
 * One exchange before the load: it must answer 200 with an RS256 `at+jwt`
 * access token for the one audience and a refresh token, so that both servers
 * are shown to do the same work.
 */
export async function preflightExchange (endpoint: TokenEndpoint, minted: MintedCode): Promise<void> {
  const response = await fetch(`${endpoint.url}${endpoint.path}`, { method: 'POST', headers: FORM, body: exchangeBody(endpoint, minted) })
  const text = await response.text()
  const fail = (why: string) => new Error(`${endpoint.path} preflight: ${why}: ${response.status} ${text.slice(0, 500)}`)
  if (response.status !== 200) throw fail('expected 200')
  const body = JSON.parse(text) as { access_token?: string, refresh_token?: string, token_type?: string }
  if (typeof body.refresh_token !== 'string' || body.token_type !== 'Bearer') throw fail('expected a Bearer token and a refresh token')
  const [header, payload] = (body.access_token ?? '').split('.').map((part) => {
    try { return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown> } catch { return undefined }
  })
  if (header?.typ !== 'at+jwt' || header.alg !== 'RS256') throw fail('expected an RS256 at+jwt access token')
  if (payload?.aud !== RESOURCE || payload.client_id !== endpoint.clientId) throw fail(`expected aud ${RESOURCE}`)
}

/** Codes a run needs at `expectedRps`: twice the expected rate over warm-up + duration, plus one per connection to spare. */
export function codesNeeded (settings: LoadSettings, expectedRps: number, cap: number): number {
  const seconds = settings.warmupSeconds + settings.durationSeconds
  return Math.min(cap, Math.ceil(2 * expectedRps * seconds) + 2 * settings.connections)
}

export async function loadWithCodes (endpoint: TokenEndpoint, codes: MintedCode[], settings: LoadSettings): Promise<Result> {
  let next = 0
  let missing = 0
  const options: Options = {
    url: `${endpoint.url}${endpoint.path}`,
    method: 'POST',
    headers: FORM,
    connections: settings.connections,
    duration: settings.durationSeconds,
    requests: [{
      setupRequest: (request) => {
        const minted = codes[next++]
        if (minted === undefined) missing++
        // Past the last code, a code nobody minted: answered 400 until the run ends, then reported below.
        return { ...request, body: exchangeBody(endpoint, minted ?? { code: 'no-code-left', verifier: 'no-code-left' }) }
      }
    }]
  }
  if (settings.warmupSeconds > 0) options.warmup = { duration: settings.warmupSeconds, connections: settings.connections }
  const result = await autocannon(options)
  if (missing > 0) {
    throw new Error(`${endpoint.path}: ran out of pre-minted authorization codes (${codes.length} minted, ` +
      `${missing} requests found none). Raise BENCH_TOKEN_RPS (expected req/s, used to size the batch) and run again.`)
  }
  return result
}
