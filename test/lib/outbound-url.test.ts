import t from 'tap'
import fc from 'fast-check'
import { forbiddenAddressReason } from '../../lib/address-class.ts'
import { checkOutboundUrl, fetchOutbound, OutboundUrlError, resolvePublicAddresses, type OutboundPolicy } from '../../lib/outbound-url.ts'
import { trustedCertificates } from '../../lib/outbound-trust.ts'
import { json, startHttpsServer } from '../support/https-server.ts'

const octet = fc.integer({ min: 0, max: 255 })
const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`
/** An IPv4 address inside network/prefix. */
function inV4 (network: string, prefix: number) {
  const base = network.split('.').reduce((n, part) => n * 256 + Number(part), 0)
  return fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => {
    const n = base + offset
    return v4(Math.floor(n / 2 ** 24) % 256, Math.floor(n / 2 ** 16) % 256, Math.floor(n / 2 ** 8) % 256, n % 256)
  })
}
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
/** An IPv6 address whose first 16-bit group is within [from, to]. */
const inV6 = (from: number, to: number) => fc.tuple(fc.integer({ min: from, max: to }), fc.array(hex16, { minLength: 7, maxLength: 7 }))
  .map(([first, rest]) => [first.toString(16), ...rest].join(':'))

const FORBIDDEN_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4]
]

t.test('address classifier: every address in a forbidden range is refused, in every spelling', async (t) => {
  for (const [network, prefix] of FORBIDDEN_V4) {
    fc.assert(fc.property(inV4(network, prefix), (address) => {
      const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number]
      const mappedHex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
      return [address, `::ffff:${address}`, mappedHex, `[::ffff:${address}]`].every((form) => forbiddenAddressReason(form) !== undefined)
    }), { numRuns: 200 })
  }
  fc.assert(fc.property(inV6(0xfc00, 0xfdff), (a) => forbiddenAddressReason(a) !== undefined), { numRuns: 300 })
  fc.assert(fc.property(inV6(0xfe80, 0xfeff), (a) => forbiddenAddressReason(a) !== undefined), { numRuns: 300 })
  fc.assert(fc.property(inV6(0xff00, 0xffff), (a) => forbiddenAddressReason(a) !== undefined), { numRuns: 300 })
  fc.assert(fc.property(inV6(0x2002, 0x2002), (a) => forbiddenAddressReason(a) !== undefined), { numRuns: 100 })
  fc.assert(fc.property(fc.tuple(octet, octet, octet, octet), ([a, b, c, d]) => forbiddenAddressReason(`64:ff9b::${v4(a, b, c, d)}`) !== undefined))
  for (const address of ['::', '::1', '[::1]', '169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '255.255.255.255', '::127.0.0.1', 'not-an-ip', '']) {
    t.ok(forbiddenAddressReason(address), `${address}: ${forbiddenAddressReason(address)}`)
  }
})

t.test('address classifier: public addresses are allowed', async (t) => {
  const publicV4 = fc.tuple(octet, octet, octet, octet).map(([a, b, c, d]) => v4(a, b, c, d))
    .filter((address) => !FORBIDDEN_V4.some(([network, prefix]) => inRange(address, network, prefix)) && !address.startsWith('192.88.99.'))
  fc.assert(fc.property(publicV4, (address) => forbiddenAddressReason(address) === undefined && forbiddenAddressReason(`::ffff:${address}`) === undefined), { numRuns: 1000 })
  fc.assert(fc.property(inV6(0x2400, 0x2fff).filter((a) => !a.startsWith('2002:')), (address) => forbiddenAddressReason(address) === undefined), { numRuns: 500 })
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '172.32.0.1', '100.128.0.1', '11.0.0.1']) {
    t.equal(forbiddenAddressReason(address), undefined, address)
  }
})

function inRange (address: string, network: string, prefix: number): boolean {
  const n = (ip: string) => ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)
  const size = 2 ** (32 - prefix)
  return Math.floor(n(address) / size) === Math.floor(n(network) / size)
}

t.test('URL form: https only (ssh when asked), a host, no credentials', async (t) => {
  t.equal(checkOutboundUrl('https://example.com/x').hostname, 'example.com')
  t.equal(checkOutboundUrl('ssh://git@example.com/repo.git', ['https:', 'ssh:']).protocol, 'ssh:', 'ssh for git callers')
  for (const raw of ['http://example.com/', 'file:///etc/passwd', 'ftp://example.com', 'gopher://x', 'https://user:pw@example.com/', 'nonsense', 'ssh://example.com/r']) {
    t.throws(() => checkOutboundUrl(raw), OutboundUrlError, raw)
  }
})

t.test('fetchOutbound against a local HTTPS server', async (t) => {
  const server = await startHttpsServer(t)
  const open: OutboundPolicy = { allowHosts: ['localhost'], extraCa: server.ca }
  const limits = { maxBytes: 100, timeoutMs: 1000 }
  server.routes.set('/ok', json({ hello: 'world' }, { 'cache-control': 'max-age=60' }))
  server.routes.set('/big', json('x'.repeat(500)))
  server.routes.set('/big-chunked', (_req, res) => {
    res.writeHead(200)
    for (let i = 0; i < 10; i++) res.write('y'.repeat(50))
    res.end()
  })
  server.routes.set('/slow', (_req, res) => { setTimeout(() => res.end('late'), 3000).unref() })
  server.routes.set('/redirect', (_req, res) => { res.writeHead(302, { location: 'https://localhost/elsewhere' }); res.end() })

  const ok = await fetchOutbound(`${server.origin}/ok`, open, limits)
  t.equal(ok.status, 200)
  t.same(JSON.parse(ok.body.toString()), { hello: 'world' })
  t.equal(ok.headers['cache-control'], 'max-age=60')
  t.equal((await fetchOutbound(`${server.origin}/redirect`, open, limits)).status, 302, 'redirects are not followed')

  const failure = async (url: string, policy: OutboundPolicy, expected: string, message: RegExp) => {
    const error = await fetchOutbound(url, policy, limits).then(() => undefined, (e: unknown) => e)
    t.type(error, OutboundUrlError, url)
    t.equal((error as OutboundUrlError).failure, expected, url)
    t.match((error as Error).message, message, url)
  }
  await failure(`${server.origin}/big`, open, 'too_large', /larger than 100 bytes/)
  await failure(`${server.origin}/big-chunked`, open, 'too_large', /larger than 100 bytes/)
  await failure(`${server.origin}/slow`, open, 'timeout', /within 1 s/)
  await failure(`${server.origin}/ok`, { extraCa: server.ca }, 'address', /localhost is at (127\.0\.0\.1|::1), a loopback address/)
  await failure(`https://127.0.0.1:${server.port}/ok`, { allowHosts: ['localhost'], extraCa: server.ca }, 'address', /loopback/)
  await failure(`https://[::ffff:127.0.0.1]:${server.port}/ok`, open, 'address', /loopback/)
  await failure('https://169.254.169.254/latest/meta-data/', open, 'address', /link-local/)
  await failure('https://[fd00:ec2::254]/', open, 'address', /unique local/)
  await failure(`${server.origin}/ok`, { allowHosts: ['localhost'] }, 'network', /certificate/)
  await failure(`http://localhost:${server.port}/ok`, open, 'url', /scheme must be https/)

  await t.rejects(resolvePublicAddresses('localhost'), /loopback/, 'for git callers: the same check on resolution')
  t.match(await resolvePublicAddresses('localhost', { allowHosts: ['localhost'] }), [{ address: /^(127\.0\.0\.1|::1)$/ }], 'allowed: resolved, unchecked')
})

t.test('the guard connects to the address it resolved and checked, IPv4 and IPv6 alike', async (t) => {
  const server = await startHttpsServer(t)
  server.routes.set('/ok', json({ ok: true }))
  const limits = { maxBytes: 100, timeoutMs: 2000 }
  const lookups: string[] = []
  // A name resolving to a private address (no /etc/hosts edit: the resolver is injected).
  const privateName: OutboundPolicy = { extraCa: server.ca, resolve: async (host) => { lookups.push(host); return [{ address: '10.0.0.1', family: 4 }] } }
  const error = await fetchOutbound('https://git.example.test/x', privateName, limits).catch((e: unknown) => e)
  t.equal((error as OutboundUrlError).failure, 'address')
  t.match((error as Error).message, /git\.example\.test is at 10\.0\.0\.1, a private/)
  t.same(lookups, ['git.example.test'], 'resolved by the guard itself')
  // One forbidden address among public ones fails the whole host.
  await t.rejects(resolvePublicAddresses('mixed.example.test', { resolve: async () => [{ address: '8.8.8.8', family: 4 }, { address: 'fd00::1', family: 6 }] }), /unique local/)

  // An allowed host still goes to the address the guard resolved: `localhost` answering ::1 first reaches
  // a server listening on IPv6 loopback only, and answering 127.0.0.1 reaches the IPv4 one.
  const v6 = await startHttpsServer(t, { listenHost: '::1' })
  v6.routes.set('/ok', json({ family: 6 }))
  const sixFirst: OutboundPolicy = { allowHosts: ['localhost'], extraCa: v6.ca, resolve: async () => [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }] }
  t.same(JSON.parse((await fetchOutbound(`https://localhost:${v6.port}/ok`, sixFirst, limits)).body.toString()), { family: 6 })
  const fourOnly: OutboundPolicy = { allowHosts: ['localhost'], extraCa: server.ca, resolve: async () => [{ address: '127.0.0.1', family: 4 }] }
  t.same(JSON.parse((await fetchOutbound(`https://localhost:${server.port}/ok`, fourOnly, limits)).body.toString()), { ok: true })
  const wrong: OutboundPolicy = { allowHosts: ['localhost'], extraCa: server.ca, resolve: async () => [{ address: '::1', family: 6 }] }
  t.equal((await fetchOutbound(`https://localhost:${server.port}/ok`, wrong, limits).catch((e: OutboundUrlError) => e) as OutboundUrlError).failure, 'network',
    'the connection goes where the resolver said, nowhere else')
})

t.test('trust: the system store, NODE_EXTRA_CA_CERTS and a given certificate', async (t) => {
  const { getCACertificates } = await import('node:tls')
  const trusted = new Set(trustedCertificates('EXTRA-PEM'))
  t.ok(getCACertificates('system').every((pem) => trusted.has(pem)), 'every system CA')
  t.ok(getCACertificates('extra').every((pem) => trusted.has(pem)), 'every NODE_EXTRA_CA_CERTS certificate')
  t.ok(getCACertificates('bundled').every((pem) => trusted.has(pem)), 'Node\'s bundled roots')
  t.ok(trusted.has('EXTRA-PEM'))
})
