import t from 'tap'
import { BASE_URL, PROXY_HEADERS, register, startTestAuthServer } from './helpers.ts'

t.test('metadata, JWKS and registration', async (t) => {
  const server = await startTestAuthServer(t)

  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    t.test(`metadata at ${path}`, async (t) => {
      const response = await fetch(`${server.url}${path}`, { headers: { ...PROXY_HEADERS, origin: 'https://agent.example' } })
      t.equal(response.status, 200)
      t.match(response.headers.get('access-control-allow-origin'), /^(\*|https:\/\/agent\.example)$/, 'CORS')
      const body = await response.json() as Record<string, unknown>
      t.match(body, {
        issuer: BASE_URL,
        authorization_endpoint: `${BASE_URL}/oauth/authorize`,
        token_endpoint: `${BASE_URL}/oauth/token`,
        jwks_uri: `${BASE_URL}/.well-known/jwks.json`,
        registration_endpoint: `${BASE_URL}/api/oauth/register`,
        revocation_endpoint: `${BASE_URL}/oauth/revoke`
      })
      t.same(body.scopes_supported, ['mcp'])
      t.same(body.code_challenge_methods_supported, ['S256'])
      t.same(body.token_endpoint_auth_methods_supported, ['none'])
      t.same(body.response_types_supported, ['code'])
      t.same(body.grant_types_supported, ['authorization_code', 'refresh_token'])
    })
  }

  t.test('JWKS publishes the RS256 public key only', async (t) => {
    const response = await fetch(`${server.url}/.well-known/jwks.json`)
    t.equal(response.status, 200)
    t.equal(response.headers.get('access-control-allow-origin'), '*')
    const { keys } = await response.json() as { keys: Array<Record<string, unknown>> }
    t.equal(keys.length, 1)
    t.same(Object.keys(keys[0] ?? {}).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use'])
    t.match(keys[0], { kty: 'RSA', alg: 'RS256', use: 'sig', kid: server.keys.signingKid })
  })

  t.test('registration: public clients only, no secret, CORS', async (t) => {
    const omitted = await register(server.url, { redirect_uris: ['http://localhost:1234/cb'], client_name: 'Agent' }, { origin: 'https://agent.example' })
    t.equal(omitted.status, 201)
    t.equal(omitted.body.token_endpoint_auth_method, 'none')
    t.type(omitted.body.client_id, 'string')
    t.notOk('client_secret' in omitted.body, 'no secret')
    t.same(omitted.body.grant_types, ['authorization_code', 'refresh_token'])
    t.equal(omitted.headers.get('access-control-allow-origin'), '*')

    const loopback = await register(server.url, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' })
    t.equal(loopback.status, 201)
    t.notOk('client_secret' in loopback.body)
    const https = await register(server.url, { redirect_uris: ['https://agent.example/cb'] })
    t.equal(https.status, 201)

    const basic = await register(server.url, { redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'client_secret_basic' })
    t.equal(basic.status, 400)
    t.equal(basic.body.error, 'invalid_client_metadata')
    t.match(basic.body.error_description, /none/)

    const plainHttp = await register(server.url, { redirect_uris: ['http://example.com/cb'] })
    t.equal(plainHttp.status, 400)
    t.equal(plainHttp.body.error, 'invalid_redirect_uri')
    t.match(plainHttp.body.error_description, /https, or http on localhost or 127\.0\.0\.1/)

    const fragment = await register(server.url, { redirect_uris: ['https://agent.example/cb#x'] })
    t.equal(fragment.status, 400)
    t.equal(fragment.body.error, 'invalid_redirect_uri')
    t.match(fragment.body.error_description, /fragment/)

    const preflight = await fetch(`${server.url}/api/oauth/register`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }
    })
    t.equal(preflight.status, 204)
    t.equal(preflight.headers.get('access-control-allow-origin'), '*')
    t.match(preflight.headers.get('access-control-allow-headers'), /Content-Type/)
  })

  t.test('authorize without a session redirects to the portal login with the transaction id', async (t) => {
    const client = await register(server.url, { redirect_uris: ['http://127.0.0.1/cb'] })
    const query = new URLSearchParams({
      client_id: client.body.client_id, response_type: 'code', scope: 'mcp',
      redirect_uri: 'http://127.0.0.1:5555/cb', // another port than registered: loopback matches on any port
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's'
    })
    const response = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: 'manual', headers: PROXY_HEADERS })
    t.equal(response.status, 303)
    t.match(response.headers.get('location'), /^https:\/\/portal\.example\.test\/login\?oauth_transaction=[\w-]+$/)
  })
})
