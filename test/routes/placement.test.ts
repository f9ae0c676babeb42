import t from 'tap'
import { build } from '../support/build.ts'
import { LIBRARY_ROUTES, folderPrefix, misplacement } from '../support/route-placement.ts'

t.test('every route is declared in the folder of its URL', async (t) => {
  const { app } = await build(t)
  const routes = app.routeTable
  t.ok(routes.length > 80, `walked ${routes.length} routes`)
  for (const route of routes) {
    const problem = misplacement(route)
    t.equal(problem, undefined, problem ?? `${[route.method].flat().join(',')} ${route.url} (${route.declaredIn.find((file) => file.startsWith('routes/')) ?? 'a library\'s route'})`)
  }

  // The MCP endpoint and the OpenAPI document have route files like any URL.
  const mcp = routes.find((route) => route.url === '/api/mcp' && route.method === 'POST')
  t.equal(mcp?.declaredIn.find((file) => file.startsWith('routes/')), 'routes/api/mcp/index.ts')
  const openapi = routes.find((route) => route.url === '/api/openapi.json' && route.method === 'GET')
  t.equal(openapi?.declaredIn[0], 'routes/api/openapi.ts')

  for (const library of LIBRARY_ROUTES) {
    t.ok(routes.some((route) => library.test(route.url) && route.declaredIn.every((file) => !file.startsWith('routes/'))), `the exception is still needed: ${library.why}`)
  }
})

t.test('a route declared outside routes/ is caught', async (t) => {
  const { app } = await build(t, {
    routes: (app) => { app.get('/api/test/misplaced', async () => ({ ok: true })) }
  })
  const route = app.routeTable.find((r) => r.url === '/api/test/misplaced' && r.method === 'GET')
  t.equal(route?.declaredIn[0], 'test/routes/placement.test.ts', 'the declaring file is found on the stack')
  t.match(route === undefined ? undefined : misplacement(route), /declared outside routes\/ \(in test\/routes\/placement\.test\.ts\)/)
})

t.test('a route in a folder that is not its URL prefix is caught', async (t) => {
  t.equal(folderPrefix('routes/api/users/index.ts'), '/api/users')
  t.equal(folderPrefix('routes/api/login.ts'), '/api')
  t.equal(folderPrefix('routes/.well-known/authorization-server.ts'), '/.well-known')

  const before = { method: 'GET', url: '/api/subscription/recommendation', declaredIn: ['routes/api/plans/recommendation.ts', 'routes/api/plans/index.ts'] }
  t.match(misplacement(before), /declared in routes\/api\/plans\/recommendation\.ts, whose folder serves \/api\/plans/)
  t.equal(misplacement({ ...before, declaredIn: ['routes/api/subscription/recommendation.ts'] }), undefined)

  // A folder name is a whole path segment: /api/users-archive is not under routes/api/users.
  t.ok(misplacement({ method: 'GET', url: '/api/users-archive', declaredIn: ['routes/api/users/index.ts'] }))
  // A helper outside routes/ may declare routes for a route file (lib/auth-server-proxy.ts): the route file counts.
  t.equal(misplacement({ method: 'POST', url: '/oauth/token', declaredIn: ['lib/auth-server-proxy.ts', 'routes/oauth/index.ts'] }), undefined)
  t.match(misplacement({ method: 'POST', url: '/api/mcp', declaredIn: ['mcp/index.ts', 'app.ts'] }), /outside routes\/ \(in mcp\/index\.ts\)/)
})
