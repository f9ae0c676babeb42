import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

const MUTATIONS = ['/api/subscription/select-plan', '/api/subscription/subscribe', '/api/subscription/confirm', '/api/subscription/demo']

t.test('PUT, PATCH, DELETE and GET on the mutation routes: 405 in the envelope, Allow: POST, OPTIONS', async (t) => {
  const { app } = await build(t)
  const { token } = await signup(app)
  for (const url of MUTATIONS) {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'GET'] as const) {
      const response = await app.inject({ method, url, headers: bearer(token), ...(method === 'GET' ? {} : { payload: {} }) })
      t.equal(response.statusCode, 405, `${method} ${url}`)
      t.equal(response.headers.allow, 'POST, OPTIONS', `${method} ${url}: Allow`)
      t.match(response.json(), { success: false, error: { code: 'METHOD_NOT_ALLOWED', details: { allowed: ['POST', 'OPTIONS'] } }, request_id: /\S+/ })
    }
  }
})

t.test('OPTIONS answers 204 with Allow, with or without CORS', async (t) => {
  const { app } = await build(t)
  for (const url of MUTATIONS) {
    const plain = await app.inject({ method: 'OPTIONS', url })
    t.equal(plain.statusCode, 204, `plain OPTIONS ${url}`)
    t.equal(plain.headers.allow, 'POST, OPTIONS')

    const preflight = await app.inject({
      method: 'OPTIONS', url,
      headers: { origin: 'http://portal.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' }
    })
    t.equal(preflight.statusCode, 204, `preflight ${url}`)
    t.equal(preflight.headers['access-control-allow-origin'], 'http://portal.test')
    t.match(preflight.headers['access-control-allow-methods'], /POST/)
    t.equal(preflight.headers.allow, 'POST, OPTIONS')

    const foreign = await app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    t.equal(foreign.headers['access-control-allow-origin'], undefined, 'a foreign origin gets no CORS grant')
  }
})

t.test('the read route keeps its own methods', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/subscription/current', payload: {} })
  t.equal(response.statusCode, 405)
  t.equal(response.headers.allow, 'GET, HEAD, OPTIONS')
})
