import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'

/** Headers that describe one connection, not the message: never forwarded (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length'])

export interface ForwardedRequest {
  method: string
  /** Path and query, as received. */
  url: string
  headers: IncomingHttpHeaders
  body?: Buffer
  /** The client's address, appended to X-Forwarded-For. */
  ip: string
}

export interface Upstream {
  /** e.g. `http://127.0.0.1:3001` */
  origin: string
  /** The public origin the client used: sent as X-Forwarded-Host / -Proto, so the upstream builds public URLs. */
  publicOrigin: string
  timeoutMs: number
}

export class UpstreamUnavailableError extends Error {
  override name = 'UpstreamUnavailableError'
}

/** Forwards one request and resolves with the upstream's response (streamed, not buffered). */
export function forward (upstream: Upstream, incoming: ForwardedRequest): Promise<IncomingMessage> {
  const target = new URL(incoming.url, upstream.origin)
  const publicUrl = new URL(upstream.publicOrigin)
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('x-forwarded-')) headers[name] = value
  }
  headers['x-forwarded-host'] = publicUrl.host
  headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '')
  headers['x-forwarded-for'] = incoming.ip
  if (incoming.body !== undefined) headers['content-length'] = String(incoming.body.length)
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(target, { method: incoming.method, headers, timeout: upstream.timeoutMs }, resolve)
    outgoing.on('timeout', () => outgoing.destroy(new UpstreamUnavailableError(`no answer from ${upstream.origin} within ${upstream.timeoutMs} ms`)))
    outgoing.on('error', (error) => reject(error instanceof UpstreamUnavailableError ? error : new UpstreamUnavailableError(error.message, { cause: error })))
    outgoing.end(incoming.body)
  })
}

/** The upstream's headers a client should see (hop-by-hop ones dropped). */
export function responseHeaders (response: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value
  }
  return headers
}
