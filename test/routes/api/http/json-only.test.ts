import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/**
 * A form post is a "simple" cross-site request: a browser sends it to another site without asking
 * first. The JSON API takes JSON only, so such a post is refused before anything runs.
 */
t.test('the JSON API answers a form-encoded body with 415 in the envelope and changes nothing', async (t) => {
  const { app } = await build(t)
  const { token, email, password } = await signup(app)
  const posts = [
    { url: '/api/login', payload: `login=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}`, headers: FORM },
    { url: '/api/tickets/create', payload: 'subject=Help&message=Please+help&priority=high', headers: { ...FORM, ...bearer(token) } },
    { url: '/api/users/invite', payload: 'email=new%40example.com&name=New&role=admin', headers: { ...FORM, ...bearer(token) } }
  ]
  for (const post of posts) {
    const answer = await app.inject({ method: 'POST', ...post })
    t.equal(answer.statusCode, 415, post.url)
    t.match(answer.json(), { success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: /\S/ }, request_id: /\S+/ }, `${post.url}: the envelope`)
  }
  const tickets = await app.inject({ method: 'GET', url: '/api/tickets', headers: bearer(token) })
  t.equal(tickets.json().tickets.length, 0, 'no ticket was opened')
  const invitations = await app.inject({ method: 'GET', url: '/api/users/invitations', headers: bearer(token) })
  t.equal(invitations.json().invitations.length, 0, 'nobody was invited')

  const json = await app.inject({ method: 'POST', url: '/api/login', payload: { login: email, password } })
  t.equal(json.statusCode, 200, 'the same login as JSON works')
})

t.test('the built-in login page still takes its form post', async (t) => {
  const { app } = await build(t)
  const answer = await app.inject({ method: 'POST', url: '/login', payload: 'email=a%40example.com&password=x&csrf=forged', headers: FORM })
  t.equal(answer.statusCode, 403, 'parsed and refused for its missing CSRF cookie, not for its media type')
  t.match(answer.body, /expired or was not opened on this site/)
})

t.test('a preflight from an origin that may not call the API is refused plainly, without CORS headers', async (t) => {
  const { app } = await build(t, { env: { CORS_ORIGINS: 'https://app.example.com' } })
  const asked = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' }
  const foreign = await app.inject({ method: 'OPTIONS', url: '/api/instances/create', headers: { origin: 'https://evil.example', ...asked } })
  t.equal(foreign.statusCode, 403)
  t.match(foreign.json(), { success: false, error: { code: 'CORS_ORIGIN_REFUSED', message: /https:\/\/evil\.example/ } })
  t.notOk(foreign.headers['access-control-allow-origin'], 'no CORS grant')
  t.notOk(foreign.headers['access-control-allow-methods'], 'no CORS methods')

  const allowed = await app.inject({ method: 'OPTIONS', url: '/api/instances/create', headers: { origin: 'https://app.example.com', ...asked } })
  t.equal(allowed.statusCode, 204, 'an origin of CORS_ORIGINS is answered')
  t.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com')

  const unknown = await app.inject({ method: 'OPTIONS', url: '/api/no-such-route', headers: { origin: 'https://evil.example', ...asked } })
  t.equal(unknown.statusCode, 404, 'an unknown path stays a 404')
})
