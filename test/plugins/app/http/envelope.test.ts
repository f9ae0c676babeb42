import t, { type Test } from 'tap'
import { Type } from 'typebox'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'

const isEnvelope = (t: Test, body: any, status: number, code: string) => {
  t.equal(body.success, false, `${status}: success is false`)
  t.equal(body.error.code, code, `${status}: code`)
  t.type(body.error.message, 'string', `${status}: human message`)
  t.match(body.request_id, /\S{8,}/, `${status}: request id`)
}

t.test('every error status answers in the one envelope', async (t) => {
  const { app } = await build(t, {
    env: { BODY_LIMIT: '2048' },
    routes: (app) => {
      app.get('/api/test/boom', { config: { auth: 'none' } }, async () => {
        throw new Error('password=hunter2 at /srv/secret.ts:42')
      })
      app.post('/api/test/echo', { config: { auth: 'none' }, schema: { body: Type.Object({ n: Type.Integer() }) } }, async (request) => request.body)
      // A number with no bounds (every schema of the project has them: test/schemas/bounds.test.ts).
      app.get('/api/test/unbounded', { config: { auth: 'none' }, schema: { querystring: Type.Object({ n: Type.Number() }) } }, async (request) => request.query)
    }
  })

  const validation = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 42, extra: true } })
  t.equal(validation.statusCode, 400)
  isEnvelope(t, validation.json(), 400, 'VALIDATION_FAILED')
  const fields = validation.json().error.details.fields.map((f: { field: string }) => f.field).sort()
  t.same(fields, ['extra', 'login', 'password'], 'names every failing field, JSON bodies are not coerced')

  const nul = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'a\u0000@example.com', password: 'x' } })
  t.equal(nul.statusCode, 400, 'a NUL character is refused before it reaches PostgreSQL')
  isEnvelope(t, nul.json(), 400, 'INVALID_CHARACTER')
  t.equal(nul.json().error.details.fields[0].field, 'login')

  const { token: viewer } = await signup(app)
  // Query coercion turns "Infinity" and "1e400" into Infinity: the bounds refuse it, and a number without bounds is refused after validation.
  const unbounded = await app.inject({ method: 'GET', url: '/api/test/unbounded?n=-1e400' })
  isEnvelope(t, unbounded.json(), 400, 'NUMBER_NOT_FINITE')
  for (const [url, field] of [['/api/activity?before=Infinity', 'before'], ['/api/activity?before=1e400', 'before'], ['/api/tickets?page=Infinity', 'page'],
    ['/api/activity?before=9223372036854775808', 'before'], ['/api/tickets?page=2147483648', 'page']]) {
    const huge = await app.inject({ method: 'GET', url, headers: bearer(viewer) })
    t.equal(huge.statusCode, 400, `${url}: never a 500`)
    isEnvelope(t, huge.json(), 400, 'VALIDATION_FAILED')
    t.equal(huge.json().error.details.fields[0].field, field, `${url}: out of bounds, names ${field}`)
  }
  const infiniteBody = await app.inject({ method: 'POST', url: '/api/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"n": 1e309}' })
  t.equal(infiniteBody.statusCode, 400, 'JSON 1e309 (Infinity) is not an integer')
  isEnvelope(t, infiniteBody.json(), 400, 'VALIDATION_FAILED')
  const surrogate = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'a\ud800@example.com', password: 'x' } })
  isEnvelope(t, surrogate.json(), 400, 'INVALID_CHARACTER')
  t.match(surrogate.json().error.details.fields[0], { field: 'login', in: 'body', message: /lone surrogate/ })

  const unauthorized = await app.inject({ method: 'GET', url: '/api/me' })
  t.equal(unauthorized.statusCode, 401)
  isEnvelope(t, unauthorized.json(), 401, 'TOKEN_MISSING')

  const notFound = await app.inject({ method: 'GET', url: '/api/does-not-exist' })
  t.equal(notFound.statusCode, 404)
  isEnvelope(t, notFound.json(), 404, 'ROUTE_NOT_FOUND')

  const badUrl = await app.inject({ method: 'GET', url: '/api/users/%zz' })
  t.equal(badUrl.statusCode, 400)
  isEnvelope(t, badUrl.json(), 400, 'BAD_URL')
  const longSegment = await app.inject({ method: 'GET', url: `/api/users/invitation/${'a'.repeat(300)}` })
  t.equal(longSegment.statusCode, 414)
  isEnvelope(t, longSegment.json(), 414, 'URI_TOO_LONG')

  const wrongMethod = await app.inject({ method: 'DELETE', url: '/api/login' })
  t.equal(wrongMethod.statusCode, 405)
  t.equal(wrongMethod.headers.allow, 'POST, OPTIONS')
  const options = await app.inject({ method: 'OPTIONS', url: '/api/login' })
  t.equal(options.statusCode, 204, 'OPTIONS answers on every known path')
  t.equal(options.headers.allow, 'POST, OPTIONS', 'and says what it allows')
  t.equal((await app.inject({ method: 'OPTIONS', url: '/api/users/00000000-0000-4000-8000-000000000000/role' })).headers.allow, 'PUT, OPTIONS', 'parametric paths too')
  isEnvelope(t, wrongMethod.json(), 405, 'METHOD_NOT_ALLOWED')

  const disabled = await signup(app)
  await app.orm.em.getConnection().execute('UPDATE users SET active = false WHERE id = ?', [disabled.user.id])
  const forbidden = await app.inject({ method: 'POST', url: '/api/login', payload: { login: disabled.email, password: disabled.password } })
  t.equal(forbidden.statusCode, 403)
  isEnvelope(t, forbidden.json(), 403, 'ACCOUNT_DISABLED')

  const { email } = await signup(app)
  const conflict = await app.inject({
    method: 'POST',
    url: '/api/signup',
    payload: { company: 'X', subdomain: 'another-one', name: 'X', email, password: 'long enough password' }
  })
  t.equal(conflict.statusCode, 409)
  isEnvelope(t, conflict.json(), 409, 'EMAIL_TAKEN')

  const tooLarge = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'a'.repeat(5000), password: 'x' } })
  t.equal(tooLarge.statusCode, 413)
  isEnvelope(t, tooLarge.json(), 413, 'PAYLOAD_TOO_LARGE')

  const wrongType = await app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'text/plain' }, payload: 'hello' })
  t.equal(wrongType.statusCode, 415)
  isEnvelope(t, wrongType.json(), 415, 'UNSUPPORTED_MEDIA_TYPE')

  const badJson = await app.inject({ method: 'POST', url: '/api/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"n":' })
  t.equal(badJson.statusCode, 400)
  isEnvelope(t, badJson.json(), 400, 'INVALID_JSON')

  const crash = await app.inject({ method: 'GET', url: '/api/test/boom' })
  t.equal(crash.statusCode, 500)
  isEnvelope(t, crash.json(), 500, 'INTERNAL_ERROR')
  t.notMatch(crash.body, /hunter2|secret\.ts|stack/, 'a 5xx never shows internals')
})

t.test('429 is in the envelope with Retry-After', async (t) => {
  const { app } = await build(t, { env: { LOGIN_LIMIT_PER_IP: '1' } })
  const attempt = () => app.inject({ method: 'POST', url: '/api/login', payload: { login: 'a@example.com', password: 'x' }, remoteAddress: '10.1.1.1' })
  t.equal((await attempt()).statusCode, 401)
  const limited = await attempt()
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After in seconds')
  isEnvelope(t, limited.json(), 429, 'RATE_LIMITED')
})

t.test('request id: generated, echoed, and taken from a well-formed X-Request-Id', async (t) => {
  const { app } = await build(t)
  const generated = await app.inject({ method: 'GET', url: '/api/me' })
  t.equal(generated.headers['x-request-id'], generated.json().request_id)

  const given = await app.inject({ method: 'GET', url: '/api/me', headers: { 'x-request-id': 'trace-1234abcd' } })
  t.equal(given.json().request_id, 'trace-1234abcd')

  const hostile = await app.inject({ method: 'GET', url: '/api/me', headers: { 'x-request-id': '<script>' } })
  t.not(hostile.json().request_id, '<script>')
})

t.test('security headers and CORS allow-list', async (t) => {
  const { app } = await build(t, { env: { CORS_ORIGINS: 'https://app.example.com' } })
  const { token } = await signup(app)
  const allowed = await app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(token), origin: 'https://app.example.com' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com')
  t.equal(allowed.headers['x-content-type-options'], 'nosniff')
  t.ok(allowed.headers['content-security-policy'], 'CSP set')

  const denied = await app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(token), origin: 'https://evil.example.com' } })
  t.equal(denied.headers['access-control-allow-origin'], undefined)
})
