import { createHash, randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'

interface Teardown { teardown: (fn: () => unknown) => void }

export const ISSUER = 'https://portal.example.test'
export const AUDIENCE = `${ISSUER}/api/mcp`

export interface SigningKey {
  kid: string
  privateKey: CryptoKey
  publicJwk: JWK
}

export async function newSigningKey (kid: string = randomUUID()): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  return { kid, privateKey, publicJwk: { ...await exportJWK(publicKey), kid, alg: 'RS256', use: 'sig' } }
}

/** An access token as the authorization server shapes them, signed with `key`. */
export async function accessToken (key: SigningKey, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: randomUUID(), client_id: 'client-1', grant_id: 'grant-1', scope: 'mcp', jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(key.privateKey)
}

export interface JwksServer {
  url: URL
  /** How many times the key set was asked for. */
  readonly fetches: number
  publish: (key: SigningKey) => void
  /** While set, every request answers 503. */
  failing: boolean
  /** Sent as Cache-Control when set. */
  cacheControl: string | undefined
  /** Whether answers carry an ETag (and If-None-Match gets a 304). */
  etag: boolean
  /** Requests that carried If-None-Match, and how many of them got a 304. */
  readonly conditional: number
  readonly notModified: number
}

/** A tiny real HTTP server publishing a JWKS, counting its fetches. */
export async function startJwksServer (t: Teardown): Promise<JwksServer> {
  const keys: JWK[] = []
  let fetches = 0
  const state = { failing: false, cacheControl: undefined as string | undefined, etag: false, conditional: 0, notModified: 0 }
  const server = createServer((request, response) => {
    fetches++
    if (state.failing) {
      response.writeHead(503).end()
      return
    }
    const body = JSON.stringify({ keys })
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (state.cacheControl !== undefined) headers['cache-control'] = state.cacheControl
    if (state.etag) headers.etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`
    if (request.headers['if-none-match'] !== undefined) state.conditional++
    if (state.etag && request.headers['if-none-match'] === headers.etag) {
      state.notModified++
      response.writeHead(304, headers).end()
      return
    }
    response.writeHead(200, headers).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`),
    get fetches () { return fetches },
    publish: (key) => { keys.push(key.publicJwk) },
    get failing () { return state.failing },
    set failing (value) { state.failing = value },
    get cacheControl () { return state.cacheControl },
    set cacheControl (value) { state.cacheControl = value },
    get etag () { return state.etag },
    set etag (value) { state.etag = value },
    get conditional () { return state.conditional },
    get notModified () { return state.notModified }
  }
}

/** A loopback URL nothing listens on (the port was just freed). */
export async function closedPortUrl (): Promise<URL> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`)
}
