import t from 'tap'
import { build } from '../support/build.ts'
import { authModeOf, securityOf, type AuthMode } from '../../lib/route-auth.ts'

/** Swagger UI's own static files are not API routes. */
const isDocsAsset = (url: string) => url === '/docs' || url.startsWith('/docs/')

t.test('every route has response schemas and appears in the OpenAPI 3.1 document', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'GET', url: '/api/openapi.json' })
  t.equal(response.statusCode, 200)
  const doc = response.json()
  t.equal(doc.openapi, '3.1.0')
  t.ok(doc.components.securitySchemes.bearerAuth, 'bearer scheme declared')
  t.same(Object.keys(doc.components.securitySchemes.mcpOAuth.flows.authorizationCode.scopes), ['mcp'], 'the MCP OAuth scheme and its one scope')

  const apiRoutes = app.routeTable.filter((route) => !isDocsAsset(route.url) && route.schema?.hide !== true)
  t.ok(apiRoutes.length >= 6, `walked ${apiRoutes.length} routes`)
  for (const route of apiRoutes) {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue
      const label = `${method} ${route.url}`
      const statuses = Object.keys((route.schema?.response ?? {}) as object)
      // A method a path documents only to refuse (GET and DELETE of the stateless MCP endpoint) answers 405.
      t.ok(statuses.some((s) => /^2\d\d$/.test(s)) || statuses.includes('405'), `${label} has a success response schema`)
      t.ok(statuses.some((s) => /^4\d\d$/.test(s)), `${label} documents its error envelope`)

      const path = route.url.replace(/:(\w+)/g, '{$1}')
      if (method === 'OPTIONS') {
        t.equal(doc.paths[path]?.options, undefined, `${label}: a CORS preflight is no call a client makes, so it stays out of the document`)
        continue
      }
      const operation = doc.paths[path]?.[method.toLowerCase()]
      t.ok(operation, `${label} is in the OpenAPI document`)
      if (operation === undefined) continue
      t.ok(operation.tags?.length > 0, `${label} has a tag`)
      const mode = authModeOf(route.url, route.config as { auth?: AuthMode })
      t.same(operation.security, securityOf(mode), `${label} security requirement matches its auth mode`)
      for (const requirement of operation.security) {
        for (const scheme of Object.keys(requirement)) t.ok(doc.components.securitySchemes[scheme], `${label}: its scheme ${scheme} is declared`)
      }
    }
  }
})

/** The verbs an operationId may start with; a new verb is welcome when none of these says it. */
const VERBS = new Set([
  'accept', 'cancel', 'change', 'close', 'confirm', 'consume', 'create', 'deactivate', 'delete', 'download', 'end', 'exchange', 'finish', 'get',
  'install', 'invite', 'list', 'log', 'mint', 'open', 'pay', 'ping', 'post', 'preflight', 'preview', 'receive', 'recommend', 'redeliver', 'refresh', 'register',
  'reply', 'request', 'resend', 'reset', 'restart', 'restore', 'resume', 'revoke', 'rotate', 'select', 'set', 'show', 'sign', 'start', 'stop', 'submit', 'subscribe', 'sync', 'uninstall', 'update', 'upgrade'
])
const OPERATION_ID = /^([a-z]+)(?:[A-Z][a-z0-9]*)+$/
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

t.test('every operation has a unique camelCase verbNoun operationId (what generated clients name their calls)', async (t) => {
  const { app } = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId?: string }>> }
  const owners = new Map<string, string>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue
      const label = `${method.toUpperCase()} ${path}`
      const id = operation.operationId ?? ''
      const verb = OPERATION_ID.exec(id)?.[1]
      t.ok(verb !== undefined && VERBS.has(verb), `${label}: operationId ${JSON.stringify(operation.operationId)} is camelCase verbNoun`)
      t.equal(owners.get(id), undefined, `${label}: operationId ${id} is unique`)
      owners.set(id, label)
    }
  }
  t.ok(owners.size >= 70, `${owners.size} operations`)
  t.equal(owners.get('getInstance'), 'GET /api/instances/{id}')
})

t.test('a route without response schemas is caught', async (t) => {
  const { app } = await build(t, {
    routes: (app) => { app.get('/api/test/undocumented', async () => ({ ok: true })) }
  })
  const route = app.routeTable.find((r) => r.url === '/api/test/undocumented')
  t.ok(route, 'test routes are in the table too')
  t.equal(route?.schema?.response, undefined, 'so the walk above would flag one without schemas')
})

t.test('Swagger UI is served at /docs, with a CSP its assets satisfy', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(response.statusCode, 200)
  t.match(response.body, /swagger/i)
  t.notMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline scripts (script-src is self)')
  t.notMatch(String(response.headers['content-security-policy']), /upgrade-insecure-requests/, 'over http, assets are not forced to https')

  const secure = await build(t, { env: { BASE_URL: 'https://portal.example.com' } })
  const overHttps = await secure.app.inject({ method: 'GET', url: '/docs/' })
  t.match(String(overHttps.headers['content-security-policy']), /upgrade-insecure-requests/, 'over https it is kept')
})
