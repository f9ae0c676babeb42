import { BlockList, isIP } from 'node:net'

/**
 * Addresses an outbound request of ours must never reach: this machine, the
 * private networks around it, link-local (and the cloud metadata services on
 * it), shared and special-purpose ranges. IPv4-mapped IPv6 forms
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) match the IPv4 ranges; IPv6 forms that
 * embed or translate an IPv4 address (compatible, NAT64, 6to4, Teredo) are
 * refused whole.
 */
const FORBIDDEN: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'ipv4', 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'ipv4', 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.88.99.0', 24, 'ipv4', '6to4 relay'],
  ['192.168.0.0', 16, 'ipv4', 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved or broadcast'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'IPv4-compatible'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64'],
  ['64:ff9b:1::', 48, 'ipv6', 'NAT64 (local)'],
  ['100::', 64, 'ipv6', 'discard-only'],
  ['2001::', 23, 'ipv6', 'IETF protocol assignments (Teredo included)'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['2002::', 16, 'ipv6', '6to4'],
  ['3fff::', 20, 'ipv6', 'documentation'],
  ['5f00::', 16, 'ipv6', 'segment routing'],
  ['fc00::', 7, 'ipv6', 'unique local (ULA; fd00:ec2::254 is a cloud metadata service)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast']
]

const lists = FORBIDDEN.map(([network, prefix, family, reason]) => {
  const list = new BlockList()
  list.addSubnet(network, prefix, family)
  return { list, reason }
})

/** Why `address` (an IP address as DNS or a URL gives it) is not a public one; undefined when it is. */
export function forbiddenAddressReason (address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const version = isIP(bare)
  if (version === 0) return 'not an IP address'
  const family = version === 4 ? 'ipv4' : 'ipv6'
  return lists.find(({ list }) => list.check(bare, family))?.reason
}
