import t from 'tap'
import fc from 'fast-check'
import { build } from '../support/build.ts'
import { bearer, signup } from '../support/accounts.ts'
import { captureLog, type LogRecord } from '../support/log-capture.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { ACCESS_LOG_MESSAGE, accessLogLevel } from '../../lib/access-log.ts'

// pino's numeric levels
const DEBUG = 20
const INFO = 30
const ERROR = 50

async function loggingApp (t: Parameters<typeof build>[0], level = 'debug') {
  const { lines, logger } = captureLog(level)
  const built = await build(t, {
    logger,
    routes: (app) => {
      app.get('/test-access-log/explode', { config: { auth: 'none' } }, async () => { throw new Error('the disk is on fire') })
    }
  })
  const linesOf = (requestId: string) => lines.filter((line) => line.request_id === requestId)
  return { ...built, lines, linesOf }
}

t.test('one access line per request: method, route pattern, status, duration, request id, tenant', async (t) => {
  const { app, linesOf } = await loggingApp(t)
  const admin = await signup(app)
  const answer = await app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(admin.token), 'x-request-id': 'trace-me-0001' } })
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers['x-request-id'], 'trace-me-0001')

  const lines = linesOf('trace-me-0001')
  t.equal(lines.length, 1, 'no "incoming request" nor "request completed" line besides it')
  const [line] = lines as [LogRecord]
  t.match(line, { msg: ACCESS_LOG_MESSAGE, level: INFO, method: 'GET', route: '/api/me', status: 200, tenant_id: admin.user.tenant_id })
  t.type(line.ms, 'number')
  t.ok((line.ms as number) >= 0)
  t.notOk('req' in line || 'res' in line || 'url' in line, 'no serialized request or raw URL')
})

t.test('ids, tokens and query strings never reach the line: the route pattern does', async (t) => {
  const { app, lines } = await loggingApp(t)
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id)
  const secret = 'secret-stream-token-value'
  const answers = [
    await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream?token=${secret}` }),
    await app.inject({ method: 'GET', url: `/api/instances/${id}?access_token=${secret}`, headers: bearer(admin.token) }),
    await app.inject({ method: 'GET', url: `/no/such/${secret}?token=${secret}` })
  ]
  const ids = answers.map((answer) => answer.headers['x-request-id'])
  const access = lines.filter((line) => line.msg === ACCESS_LOG_MESSAGE && ids.includes(line.request_id as string))
  t.equal(access.length, 3)
  t.notOk(JSON.stringify(lines).includes(secret), 'the token is in no line at all')
  t.notOk(JSON.stringify(lines).includes(admin.token), 'nor the bearer token')
  t.same(access.map((line) => line.route), ['/api/instances/:id/logs/stream', '/api/instances/:id', null])
  t.same(access.map((line) => line.status), answers.map((answer) => answer.statusCode))
  t.equal(access[2]!.code, 'ROUTE_NOT_FOUND', 'the error envelope\'s code is on the line')
})

t.test('polled routes: answers below 400 at debug, errors at info or above', async (t) => {
  const { app, linesOf } = await loggingApp(t)
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id)
  const accessOf = async (url: string, headers = {}) => {
    const answer = await app.inject({ method: 'GET', url, headers })
    return { status: answer.statusCode, lines: linesOf(answer.headers['x-request-id'] as string) }
  }

  const status = await accessOf(`/api/instances/${id}/status`, bearer(admin.token))
  t.equal(status.status, 200)
  t.match(status.lines, [{ msg: ACCESS_LOG_MESSAGE, level: DEBUG, route: '/api/instances/:id/status', status: 200, tenant_id: admin.user.tenant_id }])
  t.equal(status.lines.length, 1)

  const live = await accessOf('/health/live')
  t.match(live.lines, [{ level: DEBUG, route: '/health/live', status: 200 }])

  const missing = await accessOf('/api/instances/999999999/status', bearer(admin.token))
  t.equal(missing.status, 404)
  t.match(missing.lines, [{ level: INFO, route: '/api/instances/:id/status', status: 404, code: 'INSTANCE_NOT_FOUND' }])
  t.equal(missing.lines.length, 1, 'a 4xx is told by the access line alone')

  const refused = await accessOf(`/api/instances/${id}/status`)
  t.match(refused.lines, [{ level: INFO, status: 401 }], 'no token: logged at info')
})

t.test('at LOG_LEVEL info (the default) the polled routes\' answers write nothing, the others one line', async (t) => {
  const { app, lines } = await loggingApp(t, 'info')
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id)
  const before = lines.length
  await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })
  await app.inject({ method: 'GET', url: '/health/live' })
  t.equal(lines.length, before)
  await app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(admin.token) })
  t.equal(lines.length, before + 1)
})

t.test('a 5xx: the access line at error and the stack on the "request failed" line, same request id', async (t) => {
  const { app, linesOf } = await loggingApp(t, 'info')
  const answer = await app.inject({ method: 'GET', url: '/test-access-log/explode' })
  t.equal(answer.statusCode, 500)
  t.notMatch(answer.body, /disk is on fire/, 'the answer does not leak it')
  const lines = linesOf(answer.headers['x-request-id'] as string)
  t.equal(lines.length, 2)
  const failed = lines.find((line) => line.msg === 'request failed') as { level: number, err: { message: string, stack: string } }
  t.equal(failed.level, ERROR)
  t.equal(failed.err.message, 'the disk is on fire')
  t.match(failed.err.stack, /access-log\.test\.ts/)
  t.match(lines.find((line) => line.msg === ACCESS_LOG_MESSAGE), { level: ERROR, route: '/test-access-log/explode', status: 500, code: 'INTERNAL_ERROR' })
})

t.test('the level rule', async (t) => {
  const POLLED = ['/health/live', '/health/ready', '/api/instances/:id/status', '/metrics']
  const polled = fc.constantFrom(...POLLED)
  const other = fc.constantFrom('/api/me', '/api/dashboard', '/api/instances/:id', '/api/instances', undefined)
  const status = fc.integer({ min: 100, max: 599 })
  fc.assert(fc.property(fc.oneof(polled, other), status, (route, code) => {
    if (code === 503 && route !== undefined && POLLED.includes(route)) return accessLogLevel(route, code) === 'warn'
    if (code >= 500) return accessLogLevel(route, code) === 'error'
    if (code >= 400) return accessLogLevel(route, code) === 'info'
    return true
  }))
  fc.assert(fc.property(polled, fc.integer({ min: 100, max: 399 }), (route, code) => accessLogLevel(route, code) === 'debug'))
  fc.assert(fc.property(other, fc.integer({ min: 100, max: 399 }), (route, code) => accessLogLevel(route, code) === 'info'))
  // A readiness probe's "not ready" is news, not a fault; a real failure of the same route is an error.
  t.equal(accessLogLevel('/health/ready', 503), 'warn')
  t.equal(accessLogLevel('/health/ready', 500), 'error')
  t.equal(accessLogLevel('/api/me', 503), 'error')
  t.pass()
})
