import t from 'tap'
import { build } from '../../support/build.ts'
import { freePort } from '../../support/process.ts'
import { BASE_URL, startTestAuthServer } from '../../auth-server/helpers.ts'

/** The portal with its authorization-server routes pointing at a real auth server process on loopback. */
async function portalInFrontOf (t: Parameters<typeof build>[0], authPort: number) {
  return (await build(t, { env: { BASE_URL, AUTH_PORT: authPort } })).app
}

t.test('the portal serves the authorization server under its own origin', async (t) => {
  const auth = await startTestAuthServer(t)
  const app = await portalInFrontOf(t, Number(new URL(auth.url).port))

  const metadata = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })
  t.equal(metadata.statusCode, 200)
  t.match(metadata.json(), {
    issuer: BASE_URL,
    authorization_endpoint: `${BASE_URL}/oauth/authorize`,
    token_endpoint: `${BASE_URL}/oauth/token`,
    jwks_uri: `${BASE_URL}/.well-known/jwks.json`,
    registration_endpoint: `${BASE_URL}/api/oauth/register`,
    scopes_supported: ['mcp']
  }, 'endpoint URLs name the public origin, not the loopback address')
  t.same((await app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json().token_endpoint, `${BASE_URL}/oauth/token`)
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys.length, 1)

  const registered = await app.inject({
    method: 'POST', url: '/api/oauth/register', headers: { 'content-type': 'application/json', origin: 'https://agent.example' },
    payload: { client_name: 'Agent', redirect_uris: ['http://127.0.0.1:7777/cb'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
  })
  t.equal(registered.statusCode, 201, registered.body)
  t.ok(registered.json().client_id)
  t.notOk(registered.json().client_secret, 'a public client: no secret')

  const bad = await app.inject({
    method: 'POST', url: '/api/oauth/register', headers: { 'content-type': 'application/json' },
    payload: { redirect_uris: ['http://example.com/cb'] }
  })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().error, 'invalid_redirect_uri', 'the OAuth error passes through as it is')

  const token = await app.inject({
    method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=authorization_code&code=nope&client_id=${registered.json().client_id}&redirect_uri=http://127.0.0.1:7777/cb&code_verifier=${'a'.repeat(43)}`
  })
  t.equal(token.statusCode, 400)
  t.equal(token.json().error, 'invalid_grant', 'a form body reaches the token endpoint intact')

  const preflight = await app.inject({
    method: 'OPTIONS', url: '/oauth/token',
    headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }
  })
  t.ok(preflight.statusCode < 300, `preflight ${preflight.statusCode}`)
  t.ok(preflight.headers['access-control-allow-origin'], 'browser-based clients may call the token endpoint')

  const authorize = await app.inject({ method: 'GET', url: '/oauth/authorize?client_id=x&response_type=code' })
  t.ok(authorize.statusCode >= 300 && authorize.statusCode < 500, `authorize answers ${authorize.statusCode}, not a portal error`)
})

t.test('a NUL the portal refuses before forwarding is a 400 in the OAuth error format, as the endpoint documents', async (t) => {
  const app = await portalInFrontOf(t, await freePort())
  for (const url of ['/oauth/token?client_id=a%00b', '/api/oauth/register?x=%00', '/.well-known/oauth-authorization-server?x=%00', '/oauth/authorize?state=%00']) {
    const method = url.startsWith('/oauth/token') || url.startsWith('/api/') ? 'POST' : 'GET'
    const response = await app.inject({ method, url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: method === 'POST' ? 'a=b' : undefined })
    t.equal(response.statusCode, 400, url)
    t.match(response.json(), { error: 'invalid_request', error_description: /U\+0000/ }, `${url}: ${response.body}`)
  }
})

t.test('without the authorization server: 502 in the portal envelope, never a hang', async (t) => {
  const app = await portalInFrontOf(t, await freePort())
  const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })
  t.equal(response.statusCode, 502)
  t.equal(response.json().error.code, 'AUTH_SERVER_UNAVAILABLE')
})

t.test('the token and registration endpoints are rate-limited per client IP (429 with Retry-After)', async (t) => {
  const app = await portalInFrontOf(t, await freePort())
  let last
  for (let i = 0; i < 21; i++) {
    last = await app.inject({ method: 'POST', url: '/api/oauth/register', headers: { 'content-type': 'application/json' }, payload: '{}', remoteAddress: '10.77.0.1' })
  }
  t.equal(last!.statusCode, 429, 'the 21st registration in a minute')
  t.ok(last!.headers['retry-after'])
  const other = await app.inject({ method: 'POST', url: '/api/oauth/register', headers: { 'content-type': 'application/json' }, payload: '{}', remoteAddress: '10.77.0.2' })
  t.equal(other.statusCode, 502, 'another client is not limited (and reaches the proxy)')
})
