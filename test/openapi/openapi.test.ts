import t from 'tap'
import { build } from '../support/build.ts'
import { authModeOf, takesPortalToken, type AuthMode } from '../../lib/route-auth.ts'

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
      const operation = doc.paths[path]?.[method.toLowerCase()]
      t.ok(operation, `${label} is in the OpenAPI document`)
      if (operation === undefined) continue
      t.ok(operation.tags?.length > 0, `${label} has a tag`)
      const mode = authModeOf(route.url, route.config as { auth?: AuthMode })
      const expected = mode === 'mcp' ? [{ mcpOAuth: ['mcp'] }] : takesPortalToken(mode) ? [{ bearerAuth: [] }] : undefined
      t.same(operation.security, expected, `${label} security requirement matches its auth mode`)
    }
  }
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
