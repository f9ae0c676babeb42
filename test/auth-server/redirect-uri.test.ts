import t from 'tap'
import { redirectUriMatches } from '../../auth-server/client-policy.ts'
import { PROXY_HEADERS, register, startTestAuthServer } from './helpers.ts'

const REGISTERED = 'http://127.0.0.1:8765/callback'

/** Same host, path and query as registered, written differently: each is another string (RFC 9700 4.1.3). */
const NORMALISED_ONLY = [
  'http://127.0.0.1:8765/x/../callback',
  'http://127.0.0.1:8765/./callback',
  'http://127.1:8765/callback',
  'http://0x7f.0.0.1:8765/callback',
  'http://2130706433:8765/callback',
  'http://127.0.0.1:8765/callback/',
  'http://127.0.0.1:8765/Callback',
  'HTTP://127.0.0.1:8765/callback',
  'http://127.0.0.1:08765/callback/..',
  'http://localhost:8765/callback',
  'http://127.0.0.1:99999/callback',
  'http://127.0.0.1:/callback',
  'http://user@127.0.0.1:8765/callback',
  'http://127.0.0.1:8765/callback?x=1'
]

t.test('loopback redirect URIs match as strings, any port', async (t) => {
  t.ok(redirectUriMatches(REGISTERED, [REGISTERED]))
  t.ok(redirectUriMatches('http://127.0.0.1:1/callback', [REGISTERED]), 'another port')
  t.ok(redirectUriMatches('http://127.0.0.1/callback', [REGISTERED]), 'no port')
  t.ok(redirectUriMatches('http://[::1]:5/cb', ['http://[::1]/cb']))
  t.ok(redirectUriMatches('http://localhost:5/cb?a=b', ['http://localhost:6/cb?a=b']))
  for (const uri of NORMALISED_ONLY) t.notOk(redirectUriMatches(uri, [REGISTERED]), uri)
  t.notOk(redirectUriMatches('https://agent.example:444/cb', ['https://agent.example/cb']), 'a non-loopback port is exact')
})

t.test('/oauth/authorize refuses every other spelling with an error page, never a redirect', async (t) => {
  const server = await startTestAuthServer(t)
  const client = await register(server.url, { redirect_uris: [REGISTERED] })
  t.equal(client.status, 201)
  const authorize = (redirectUri: string) => fetch(`${server.url}/oauth/authorize?${new URLSearchParams({
    client_id: client.body.client_id, response_type: 'code', scope: 'mcp', redirect_uri: redirectUri,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's'
  })}`, { redirect: 'manual', headers: PROXY_HEADERS })

  const accepted = await authorize('http://127.0.0.1:4321/callback')
  t.equal(accepted.status, 303, 'another port is accepted')
  t.match(accepted.headers.get('location'), /\/login\?oauth_transaction=/)

  for (const uri of NORMALISED_ONLY) {
    const response = await authorize(uri)
    t.equal(response.status, 400, uri)
    t.equal(response.headers.get('location'), null, `${uri}: no redirect`)
    t.match(await response.text(), /redirect_uri/)
  }
})

t.test('registration: http only on a loopback name written as such', async (t) => {
  const server = await startTestAuthServer(t)
  for (const uri of ['http://127.1/cb', 'http://0x7f.0.0.1/cb', 'http://2130706433/cb', 'HTTP://localhost/cb']) {
    const response = await register(server.url, { redirect_uris: [uri] })
    t.equal(response.status, 400, uri)
    t.equal(response.body.error, 'invalid_redirect_uri')
  }
  t.equal((await register(server.url, { redirect_uris: ['http://[::1]:7000/cb'] })).status, 201)
})
