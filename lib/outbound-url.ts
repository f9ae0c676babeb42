/**
 * The one guard for requests this service makes to URLs that users or clients
 * choose (OAuth Client ID Metadata Documents, Git addon sources): such a URL
 * must not reach this machine or the networks behind it (SSRF).
 *
 * - The scheme is https (callers that hand the URL to git may also allow ssh).
 * - The host's addresses must be public (lib/address-class.ts). They are
 *   checked in the `lookup` of the connection itself, so the address that is
 *   checked is the address that is connected to: a DNS answer that changes
 *   between a check and the connection (DNS rebinding) cannot get past it.
 *   An IP-literal host is checked before connecting (no lookup happens).
 * - Hosts on the allow-list (OUTBOUND_ALLOW_HOSTS, empty by default) skip the
 *   address check: for a known internal server, and for tests.
 * - Responses are capped in size and the whole exchange in time; redirects
 *   are not followed.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns'
import { request } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'
import { isIP, type LookupFunction } from 'node:net'
import { rootCertificates } from 'node:tls'
import { forbiddenAddressReason } from './address-class.ts'

export interface OutboundPolicy {
  /** Host names (lower case, as a URL spells them) whose addresses are not checked. */
  allowHosts?: readonly string[]
  /** Certificates to trust besides the system's roots (a test server's self-signed one). */
  extraCa?: string
}

export type OutboundFailure = 'url' | 'address' | 'too_large' | 'timeout' | 'network'

export class OutboundUrlError extends Error {
  override name = 'OutboundUrlError'
  readonly failure: OutboundFailure

  constructor (failure: OutboundFailure, message: string) {
    super(message)
    this.failure = failure
  }
}

/** `OUTBOUND_ALLOW_HOSTS`: comma-separated host names. */
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

function isAllowed (hostname: string, policy: OutboundPolicy): boolean {
  return (policy.allowHosts ?? []).includes(hostname.toLowerCase())
}

function refuse (host: string, address: string, reason: string): OutboundUrlError {
  return new OutboundUrlError('address', `${host} is at ${address}, a ${reason} address, not a public one`)
}

/**
 * A `lookup` for net/tls connections that resolves the host and fails when
 * any of its addresses is not public. Callers that connect by other means
 * (git over ssh) use `resolvePublicAddresses` and connect to what it returns.
 */
export function guardedLookup (): LookupFunction {
  return ((hostname: string, options: LookupAllOptions | Record<string, unknown>, callback: (...args: any[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error)
      for (const { address } of addresses) {
        const reason = forbiddenAddressReason(address)
        if (reason !== undefined) return callback(refuse(hostname, address, reason))
      }
      if (addresses.length === 0) return callback(new OutboundUrlError('network', `${hostname} has no address`))
      if ((options as { all?: boolean }).all === true) return callback(null, addresses)
      const [first] = addresses as [LookupAddress]
      callback(null, first.address, first.family)
    })
  }) as LookupFunction
}

/** The host's addresses when all are public (or the host is allow-listed); throws OutboundUrlError otherwise. */
export async function resolvePublicAddresses (hostname: string, policy: OutboundPolicy = {}): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1')
  if (isAllowed(hostname, policy)) return [{ address: bare, family: bare.includes(':') ? 6 : 4 }]
  return await new Promise((resolve, reject) => {
    guardedLookup()(bare, { all: true }, (error, addresses) => error === null ? resolve(addresses as LookupAddress[]) : reject(error))
  })
}

export interface OutboundRequest {
  maxBytes: number
  /** For the whole exchange: connection, headers and body. */
  timeoutMs: number
  headers?: Record<string, string>
}

export interface OutboundResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** GET an https URL through the guard. Any status is answered (redirects are not followed); failures throw OutboundUrlError. */
export async function fetchOutbound (raw: string, policy: OutboundPolicy, options: OutboundRequest): Promise<OutboundResponse> {
  const url = checkOutboundUrl(raw)
  const allowed = isAllowed(url.hostname, policy)
  // An IP-literal host is connected to without a lookup: check it here.
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const literalReason = !allowed && isIP(literal) !== 0 ? forbiddenAddressReason(literal) : undefined
  if (literalReason !== undefined) throw refuse(url.hostname, literal, literalReason)
  const signal = AbortSignal.timeout(options.timeoutMs)
  return await new Promise<OutboundResponse>((resolve, reject) => {
    const fail = (error: unknown) => reject(describe(error, signal, options))
    const outgoing = request(url, {
      method: 'GET',
      headers: options.headers,
      agent: false,
      signal,
      ...(allowed ? {} : { lookup: guardedLookup() }),
      ...(policy.extraCa === undefined ? {} : { ca: [...rootCertificates, policy.extraCa] })
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
    outgoing.end()
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
