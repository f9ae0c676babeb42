import { randomUUID } from 'node:crypto'
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
}

/** A tiny real HTTP server publishing a JWKS, counting its fetches. */
export async function startJwksServer (t: Teardown): Promise<JwksServer> {
  const keys: JWK[] = []
  let fetches = 0
  const state = { failing: false }
  const server = createServer((request, response) => {
    fetches++
    if (state.failing) {
      response.writeHead(503).end()
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }))
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
    set failing (value) { state.failing = value }
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
