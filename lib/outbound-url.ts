/**
 * The one guard for requests this service makes to URLs that users or clients
 * choose (OAuth Client ID Metadata Documents, Git addon sources): such a URL
 * must not reach this machine or the networks behind it (SSRF).
 *
 * - The scheme is https (callers that hand the URL to git may also allow ssh).
 * - The guard resolves the host itself and the connection goes to the address
 *   it checked (lib/outbound-lookup.ts), IPv4 and IPv6 alike: a DNS answer that
 *   changes between a check and the connection (DNS rebinding) cannot get past
 *   it. Callers that connect by other means (the git CLI) use
 *   `resolvePublicAddresses` and pin git to the address it returns.
 * - Hosts on a use's allow-list (a `*_ALLOWED_HOSTS` setting, empty by default)
 *   skip the address check, not the pinning: for a known internal server, and
 *   for tests.
 * - Trust: the system's CAs plus NODE_EXTRA_CA_CERTS (lib/outbound-trust.ts).
 * - Responses are capped in size and the whole exchange in time; redirects
 *   are not followed.
 */
import type { LookupAddress } from 'node:dns'
import { request } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'
import type { ConnectionOptions } from 'node:tls'
import { checkedAddresses, OutboundUrlError, pinnedLookup, type Resolver } from './outbound-lookup.ts'
import { trustedContext } from './outbound-trust.ts'

export { OutboundUrlError, type OutboundFailure, type Resolver } from './outbound-lookup.ts'

export interface OutboundPolicy {
  /** Host names (lower case, as a URL spells them) whose addresses are not checked. */
  allowHosts?: readonly string[]
  /** A certificate to trust besides the system's and NODE_EXTRA_CA_CERTS (a test server's self-signed one). */
  extraCa?: string
  /** Name resolution; default the system's (tests make a name resolve to a private address). */
  resolve?: Resolver
}

/** A `*_ALLOWED_HOSTS` setting: comma-separated host names. */
export function parseAllowHosts (value: string | undefined): string[] {
  return (value ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean)
}

/** The URL, parsed, when its form is acceptable: an allowed scheme, a host, no user or password. */
export function checkOutboundUrl (raw: string, schemes: readonly string[] = ['https:']): URL {
  const url = URL.parse(raw)
  if (url === null) throw new OutboundUrlError('url', 'not a valid URL')
  if (!schemes.includes(url.protocol)) throw new OutboundUrlError('url', `the scheme must be ${schemes.map((s) => s.replace(':', '')).join(' or ')}`)
  if (url.hostname === '') throw new OutboundUrlError('url', 'the URL has no host')
  // ssh URLs name the remote account (git@host); nothing else may carry credentials.
  if (url.password !== '' || (url.username !== '' && url.protocol !== 'ssh:')) {
    throw new OutboundUrlError('url', 'the URL must not carry a user name or password')
  }
  return url
}

export function isAllowedHost (hostname: string, policy: OutboundPolicy): boolean {
  return (policy.allowHosts ?? []).includes(hostname.toLowerCase())
}

/** The host's checked addresses (allow-listed hosts resolve unchecked); throws OutboundUrlError otherwise. */
export async function resolvePublicAddresses (hostname: string, policy: OutboundPolicy = {}): Promise<LookupAddress[]> {
  return await checkedAddresses(hostname, isAllowedHost(hostname, policy), policy.resolve)
}

export interface OutboundRequest {
  maxBytes: number
  /** For the whole exchange: connection, headers and body. */
  timeoutMs: number
  headers?: Record<string, string>
  /** GET unless told; a POST sends `body` (webhook deliveries). */
  method?: 'GET' | 'POST'
  body?: string | Buffer
}

export interface OutboundResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** GET (or POST) an https URL through the guard. Any status is answered (redirects are not followed); failures throw OutboundUrlError. */
export async function fetchOutbound (raw: string, policy: OutboundPolicy, options: OutboundRequest): Promise<OutboundResponse> {
  const url = checkOutboundUrl(raw)
  const allowed = isAllowedHost(url.hostname, policy)
  // An IP-literal host is connected to without a lookup: check it here.
  if (/^\[|^[\d.]+$/.test(url.hostname)) await checkedAddresses(url.hostname, allowed)
  const signal = AbortSignal.timeout(options.timeoutMs)
  return await new Promise<OutboundResponse>((resolve, reject) => {
    const fail = (error: unknown) => reject(describe(error, signal, options))
    const outgoing = request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
      signal,
      lookup: pinnedLookup(allowed, policy.resolve),
      // Node's https takes tls.connect's options; its RequestOptions type does not list this one.
      ...{ secureContext: trustedContext(policy.extraCa) } satisfies Pick<ConnectionOptions, 'secureContext'>
    }, (response) => {
      const declared = Number(response.headers['content-length'])
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        reject(tooLarge(options))
        outgoing.destroy()
        return
      }
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= options.maxBytes) return void chunks.push(chunk)
        reject(tooLarge(options))
        outgoing.destroy()
      })
      response.on('error', fail)
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
    })
    outgoing.on('error', fail)
    outgoing.end(options.body)
  })
}

function tooLarge (options: OutboundRequest): OutboundUrlError {
  return new OutboundUrlError('too_large', `the response is larger than ${options.maxBytes} bytes`)
}

function describe (error: unknown, signal: AbortSignal, options: OutboundRequest): OutboundUrlError {
  if (error instanceof OutboundUrlError) return error
  if (signal.aborted) return new OutboundUrlError('timeout', `no complete answer within ${options.timeoutMs / 1000} s`)
  return new OutboundUrlError('network', `the request failed (${(error as Error).message})`)
}
