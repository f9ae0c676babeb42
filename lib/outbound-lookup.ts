import { promises as dns, type LookupAddress, type LookupAllOptions } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { forbiddenAddressReason } from './address-class.ts'

/** How a host name becomes addresses; injectable so tests can make a name resolve anywhere. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export const systemResolver: Resolver = async (hostname) => await dns.lookup(hostname, { all: true, order: 'verbatim' })

export type OutboundFailure = 'url' | 'address' | 'too_large' | 'timeout' | 'network'

export class OutboundUrlError extends Error {
  override name = 'OutboundUrlError'
  readonly failure: OutboundFailure

  constructor (failure: OutboundFailure, message: string) {
    super(message)
    this.failure = failure
  }
}

export function refuse (host: string, address: string, reason: string): OutboundUrlError {
  return new OutboundUrlError('address', `${host} is at ${address}, a ${reason} address, not a public one`)
}

/**
 * The host's addresses, each checked: any non-public one fails the whole host
 * unless `allowed` (a host a deployment opened on purpose). An IP literal is
 * its own address. IPv4 and IPv6 answers are treated alike, in the resolver's order.
 */
export async function checkedAddresses (hostname: string, allowed: boolean, resolve: Resolver = systemResolver): Promise<LookupAddress[]> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1')
  const version = isIP(bare)
  let addresses: LookupAddress[]
  if (version !== 0) {
    addresses = [{ address: bare, family: version }]
  } else {
    try {
      addresses = await resolve(bare)
    } catch (error) {
      throw new OutboundUrlError('network', `${bare} cannot be resolved (${(error as Error).message})`)
    }
  }
  if (addresses.length === 0) throw new OutboundUrlError('network', `${bare} has no address`)
  if (!allowed) {
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address)
      if (reason !== undefined) throw refuse(bare, address, reason)
    }
  }
  return addresses
}

/**
 * A `lookup` for net/tls connections: the connection goes to an address this
 * guard resolved and checked, never to one a second resolution could change
 * (DNS rebinding). Answers both forms Node asks for (one address, or all).
 */
export function pinnedLookup (allowed: boolean, resolve: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: LookupAllOptions | Record<string, unknown>, callback: (...args: any[]) => void) => {
    checkedAddresses(hostname, allowed, resolve).then((addresses) => {
      const family = (options as { family?: number | string }).family
      const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0
      const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted)
      if (usable.length === 0) return callback(new OutboundUrlError('network', `${hostname} has no IPv${wanted} address`))
      if ((options as { all?: boolean }).all === true) return callback(null, usable)
      const [first] = usable as [LookupAddress]
      callback(null, first.address, first.family)
    }, callback)
  }) as LookupFunction
}
