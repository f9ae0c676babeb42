import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import t from 'tap'
import helmet from 'helmet'
import { securityHeaders } from '../../../plugins/external/helmet.ts'
import { build } from '../../support/build.ts'
import { bearer, signup } from '../../support/accounts.ts'

t.test('the headers worked out once are those helmet sets on a real response', async (t) => {
  const options = { contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], frameAncestors: ["'none'"], upgradeInsecureRequests: null } } }
  const request = new IncomingMessage(new Socket())
  const response = new ServerResponse(request)
  response.setHeader('x-powered-by', 'something')
  helmet(options)(request, response, (error?: unknown) => { if (error) throw error })
  const real = Object.fromEntries(Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]))
  t.same(securityHeaders(options), real)
  t.equal(real['x-powered-by'], undefined, 'helmet removes X-Powered-By, and the copy sets none')
})

t.test('every answer carries the same security headers: data, errors, a route that checks its token inline', async (t) => {
  const { app } = await build(t)
  const { token } = await signup(app)
  const answers = await Promise.all([
    app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) }),
    app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(token) }),
    app.inject({ method: 'GET', url: '/api/activity' }),
    app.inject({ method: 'GET', url: '/api/no-such-route' })
  ])
  t.same(answers.map((answer) => answer.statusCode), [200, 200, 401, 404])
  for (const answer of answers) {
    t.match(answer.headers, {
      'content-security-policy': /^default-src 'self';.*frame-ancestors 'none'/,
      'cross-origin-resource-policy': 'same-site',
      'strict-transport-security': /^max-age=\d+/,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN'
    })
    t.notMatch(String(answer.headers['content-security-policy']), /upgrade-insecure-requests/, 'served over http: no forced upgrade')
  }
})

t.test('served over https, browsers are asked to upgrade', async (t) => {
  const { app } = await build(t, { env: { BASE_URL: 'https://portal.example.com' } })
  const answer = await app.inject({ method: 'GET', url: '/api/no-such-route' })
  t.match(String(answer.headers['content-security-policy']), /upgrade-insecure-requests/)
})
