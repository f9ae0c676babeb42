import fc from 'fast-check'
import t from 'tap'
import { createOriginPolicy } from '../../mcp/origin-policy.ts'
import { signup } from '../support/accounts.ts'
import { BASE_URL, mcpHeaders, startMcpFixture } from '../support/mcp.ts'
import { assertAccepted, assertErrorEnvelope } from './support-rejection.ts'

const FRONT_END = 'https://app.example.com'
const policy = createOriginPolicy({ baseUrl: BASE_URL, corsOrigins: [FRONT_END] })
const OWN_HOST = new URL(BASE_URL).host
const ALLOWED_HOSTNAMES = ['portal.example.test', 'localhost', '127.0.0.1', '[::1]']

t.test('Host: BASE_URL\'s host and loopback names are ours', async (t) => {
  for (const host of ['portal.example.test', 'portal.example.test:443', 'PORTAL.Example.TEST', 'localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:3000']) {
    t.same(policy(host, undefined), { allowed: true }, host)
  }
})

t.test('Host: any other name is refused (DNS rebinding)', async (t) => {
  const refused = [
    undefined, '', 'evil.example', 'evil.example:443', 'portal.example.test.evil.example', 'evil-portal.example.test',
    'portal.example.test@evil.example', 'evil.example#portal.example.test', 'localhost.evil.example', '127.0.0.1.nip.io',
    '10.0.0.5', '[::2]'
  ]
  for (const host of refused) t.equal(policy(host, undefined).allowed, false, `Host ${JSON.stringify(host)}`)
})

t.test('Origin: BASE_URL, CORS_ORIGINS and loopback pages are allowed; agents send none', async (t) => {
  for (const origin of [undefined, BASE_URL, FRONT_END, 'http://localhost:6274', 'http://127.0.0.1:6274', 'http://[::1]:6274', 'https://localhost']) {
    t.same(policy(OWN_HOST, origin), { allowed: true }, `Origin ${origin ?? '(none)'}`)
  }
})

t.test('Origin: any other page is refused, including the opaque origin null', async (t) => {
  const refused = [
    'https://evil.example', 'null', 'http://portal.example.test', 'https://portal.example.test:8443',
    'https://app.example.com.evil.example', 'http://localhost.evil.example', 'ws://localhost', 'file://', 'chrome-extension://abcdef'
  ]
  for (const origin of refused) {
    const verdict = policy(OWN_HOST, origin)
    t.equal(verdict.allowed, false, `Origin ${origin}`)
  }
  t.match(policy(OWN_HOST, 'https://evil.example'), { allowed: false, reason: /evil\.example/ }, 'the reason names the origin')
})

t.test('properties of the host and origin checks', async (t) => {
  const otherDomain = fc.domain().filter((domain) => !ALLOWED_HOSTNAMES.includes(domain))
  const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })
  const withPort = (name: string, p: number | undefined) => (p === undefined ? name : `${name}:${p}`)

  t.test('a Host naming any other domain is refused, whatever its port', async (t) => {
    fc.assert(fc.property(otherDomain, port, (domain, p) => !policy(withPort(domain, p), undefined).allowed))
    t.pass()
  })

  t.test('our own names are allowed with any port and any letter case', async (t) => {
    const ours = fc.constantFrom(...ALLOWED_HOSTNAMES).chain((name) => fc.mixedCase(fc.constant(name)))
    fc.assert(fc.property(ours, port, (name, p) => policy(withPort(name, p), undefined).allowed))
    t.pass()
  })

  t.test('an http(s) Origin on any other domain is refused', async (t) => {
    fc.assert(fc.property(fc.constantFrom('http', 'https'), otherDomain, port, (scheme, domain, p) =>
      !policy(OWN_HOST, withPort(`${scheme}://${domain}`, p)).allowed))
    t.pass()
  })

  t.test('arbitrary Host and Origin strings never throw and answer a verdict', async (t) => {
    fc.assert(fc.property(fc.option(fc.string()), fc.option(fc.string()), (host, origin) =>
      typeof policy(host ?? undefined, origin ?? undefined).allowed === 'boolean'))
    t.pass()
  })
})

t.test('through /api/mcp', async (t) => {
  const { app, connectAgent } = await startMcpFixture(t, { CORS_ORIGINS: FRONT_END })
  const person = await signup(app)
  const { accessToken } = await connectAgent(person)
  const createTicket = (headers: Record<string, string>) => app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { ...mcpHeaders(accessToken), ...headers },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_ticket', arguments: { subject: 'From a web page', description: 'Should not exist' } } }
  })
  const ticketCount = async () =>
    (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM tickets WHERE tenant_id = $1', values: [person.user.tenant_id] }))[0]?.n

  t.test('a valid token from Origin https://evil.example: 403 ORIGIN_NOT_ALLOWED and nothing done', async (t) => {
    const response = await createTicket({ origin: 'https://evil.example' })
    t.equal(response.statusCode, 403)
    assertErrorEnvelope(t, response, 'ORIGIN_NOT_ALLOWED')
    t.equal(response.headers['www-authenticate'], undefined, 'no OAuth challenge')
    t.equal(await ticketCount(), 0, 'no ticket was created')
  })

  t.test('a valid token with Host evil.example: 403 ORIGIN_NOT_ALLOWED and nothing done', async (t) => {
    const response = await createTicket({ host: 'evil.example' })
    t.equal(response.statusCode, 403)
    assertErrorEnvelope(t, response, 'ORIGIN_NOT_ALLOWED')
    t.equal(await ticketCount(), 0, 'no ticket was created')
  })

  t.test('Origin null (a sandboxed page or file): 403', async (t) => {
    const response = await createTicket({ origin: 'null' })
    t.equal(response.statusCode, 403)
    assertErrorEnvelope(t, response, 'ORIGIN_NOT_ALLOWED')
  })

  t.test('no token from a foreign origin: 403 before any token talk', async (t) => {
    const response = await app.inject({ method: 'POST', url: '/api/mcp', headers: { ...mcpHeaders(), origin: 'https://evil.example' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
    t.equal(response.statusCode, 403)
    t.equal(response.headers['www-authenticate'], undefined)
  })

  t.test('the portal\'s origin, CORS_ORIGINS and a loopback page are let through', async (t) => {
    for (const origin of [BASE_URL, FRONT_END, 'http://localhost:6274']) {
      const response = await app.inject({ method: 'POST', url: '/api/mcp', headers: { ...mcpHeaders(accessToken), origin, host: OWN_HOST }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
      t.test(origin, async (t) => { assertAccepted(t, response) })
    }
    const created = await createTicket({ host: OWN_HOST, origin: BASE_URL })
    t.equal(created.statusCode, 200)
    t.equal(await ticketCount(), 1, 'the same call from the portal\'s own origin does create the ticket')
  })

  t.test('CORS: a loopback page may preflight /api/mcp, not the rest of the API', async (t) => {
    const preflight = (url: string) => app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-protocol-version' }
    })
    const mcp = await preflight('/api/mcp')
    t.equal(mcp.headers['access-control-allow-origin'], 'http://localhost:6274')
    t.match(String(mcp.headers['access-control-allow-headers']), /mcp-protocol-version/i)
    const users = await preflight('/api/users')
    t.equal(users.headers['access-control-allow-origin'], undefined, 'the REST API keeps its allow-list')
    const evil = await app.inject({ method: 'OPTIONS', url: '/api/mcp', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    t.equal(evil.headers['access-control-allow-origin'], undefined, 'a remote page still may not')
  })
})
