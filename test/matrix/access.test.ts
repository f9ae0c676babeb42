import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../support/build.ts'
import { addMember, bearer, signup, type SignedUp } from '../support/accounts.ts'
import { ROUTES, type Resource } from './routes.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { tenantSnapshot } from '../support/snapshot.ts'

// Instances are recorded rows with nothing on the backend: a reconciliation pass would (rightly)
// mark them as errors in the middle of a slow run and change the snapshots. The matrix checks access.
const QUIET_RECONCILER = { RECONCILE_SECONDS: 3600 }

const registered = (app: FastifyInstance) => app.routeTable
  .filter((route) => !route.url.startsWith('/docs') && (route.schema as { hide?: boolean } | undefined)?.hide !== true)
  .flatMap((route) => [route.method].flat().filter((method) => method !== 'HEAD').map((method) => `${method} ${route.url}`))

const request = (key: string, id?: string) => {
  const [method, url] = key.split(' ') as [string, string]
  const spec = ROUTES[key]!
  const path = Object.entries(spec.params ?? {}).reduce((path, [name, value]) => path.replace(`:${name}`, value), url)
  return {
    method: method as 'GET',
    url: id === undefined ? path : path.replace(':id', id),
    ...(spec.body === undefined ? {} : { payload: spec.body })
  }
}

/** One resource of each kind in a tenant, made through the real routes. */
async function resourcesOf (app: FastifyInstance, admin: SignedUp): Promise<Record<Resource, string>> {
  const member = await addMember(app, admin.user.tenant_id)
  const ticket = await app.inject({ method: 'POST', url: '/api/tickets/create', headers: bearer(admin.token), payload: { subject: 'Owned ticket', description: 'Text', priority: 'normal' } })
  const invitation = await app.inject({ method: 'POST', url: '/api/users/invite', headers: bearer(admin.token), payload: { email: `owned-${admin.user.id}@example.com`, name: 'Owned', role: 'user' } })
  // Recorded directly: the matrix checks access, not backends (test/routes/api/instances does those).
  const instance = await recordInstance(app, admin.user.tenant_id, { name: 'Owned' })
  const grant = `grant-${admin.user.id}`
  await app.sql({ text: "INSERT INTO oidc_payloads (kind, id, payload) VALUES ('Grant', $1, $2)", values: [grant, JSON.stringify({ accountId: admin.user.id, clientId: 'matrix' })] })
  // Recorded directly: registering resolves the repository's host, which the matrix has no server for.
  const [source] = await app.sql<{ id: string }>({ text: "INSERT INTO addon_sources (tenant_id, name, repository_url, branch, created_at, updated_at) VALUES ($1, 'Owned', 'https://git.example.com/owned.git', 'main', now(), now()) RETURNING id", values: [admin.user.tenant_id] })
  // Recorded directly: registering an endpoint resolves its host too. Its secret is never read by these routes' refusals.
  const [webhook] = await app.sql<{ id: string }>({ text: "INSERT INTO webhook_endpoints (id, tenant_id, url, events, sealed_secret, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'https://hooks.example.com/owned', '[\"instance.running\"]', 'sealed', now(), now()) RETURNING id", values: [admin.user.tenant_id] })
  const [session] = await app.sql<{ id: string }>({ text: 'SELECT id FROM portal_sessions WHERE user_id = $1 LIMIT 1', values: [admin.user.id] })
  return {
    user: member.user.id, ticket: ticket.json().ticket.id, invitation: invitation.json().invitation.id, instance: String(instance), grant,
    addon_source: String(source?.id), webhook: String(webhook?.id), session: String(session?.id)
  }
}

t.test('every registered route is classified, and every classified route exists', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  const routes = registered(app)
  t.same(routes.filter((key) => ROUTES[key] === undefined), [], 'unclassified routes: add them to test/matrix/routes.ts')
  t.same(Object.keys(ROUTES).filter((key) => !routes.includes(key)), [], 'classified routes that no longer exist')
})

t.test('without a token, every member and admin route answers 401, whatever the id looks like', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  for (const [key, spec] of Object.entries(ROUTES)) {
    if (spec.access !== 'member' && spec.access !== 'admin') continue
    const ids = key.includes(':id') ? ['00000000-0000-4000-8000-000000000000', '42', 'abc', '1.5', '0', '-1', '99999999999999999999'] : [undefined]
    for (const id of ids) {
      const response = await app.inject(request(key, id))
      t.equal(response.statusCode, 401, `${key} id=${id}`)
      t.equal(response.json().error.code, 'TOKEN_MISSING', `${key} id=${id}`)
    }
  }
})

t.test('agent routes refuse a missing token and a portal token with the OAuth challenge', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  const person = await signup(app)
  for (const [key, spec] of Object.entries(ROUTES)) {
    if (spec.access !== 'agent') continue
    const base = request(key, undefined)
    const anonymous = await app.inject(base)
    t.equal(anonymous.statusCode, 401, `${key} without a token`)
    t.match(anonymous.headers['www-authenticate'], /^Bearer resource_metadata="[^"]+", scope="mcp"$/, key)
    const portal = await app.inject({ ...base, headers: bearer(person.token) })
    t.equal(portal.statusCode, 401, `${key} with a portal token`)
    t.match(portal.headers['www-authenticate'], /^Bearer error="invalid_token", /, key)
  }
})

t.test('role matrix: a user on every admin route gets 403 and changes nothing', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const own = await resourcesOf(app, admin)
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  for (const [key, spec] of Object.entries(ROUTES)) {
    if (spec.access !== 'admin') continue
    const response = await app.inject({ ...request(key, spec.resource && own[spec.resource]), headers: bearer(member.token) })
    t.equal(response.statusCode, 403, key)
    t.equal(response.json().error.code, 'FORBIDDEN', key)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('cross-tenant matrix: another tenant\'s id answers 404 on every route that takes one, and changes nothing', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  const attacker = await signup(app)
  const victim = await signup(app)
  const theirs = await resourcesOf(app, victim)
  // The probe is the neighbour's real integer id (a well-formed id of a row that exists), so a 404 is scoping, not validation.
  t.match(theirs.instance, /^[1-9]\d*$/, 'instance ids are integers')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${theirs.instance}`, headers: bearer(victim.token) })).statusCode, 200, 'the owner reaches it by that id')
  const before = await tenantSnapshot(app, victim.user.tenant_id)
  let checked = 0
  for (const [key, spec] of Object.entries(ROUTES)) {
    if (spec.resource === undefined || spec.access === 'operator' || spec.access === 'public') continue
    const response = await app.inject({ ...request(key, theirs[spec.resource]), headers: bearer(attacker.token) })
    t.equal(response.statusCode, 404, key)
    t.equal(response.json().error.code.endsWith('NOT_FOUND'), true, `${key}: ${response.json().error.code}`)
    checked++
  }
  t.ok(checked >= 6, `${checked} routes checked`)
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), before, 'the other tenant\'s rows are unchanged')
})

t.test('cross-tenant reads: no collection route shows or counts another tenant\'s rows', async (t) => {
  const { app } = await build(t, { env: QUIET_RECONCILER })
  const reader = await signup(app)
  await resourcesOf(app, reader)
  const collections = Object.entries(ROUTES)
    .filter(([key, spec]) => key.startsWith('GET ') && spec.resource === undefined && (spec.access === 'member' || spec.access === 'admin'))
    .map(([key]) => key)
  const read = async () => Object.fromEntries(await Promise.all(collections.map(async (key) => {
    const response = await app.inject({ ...request(key), headers: bearer(reader.token) })
    return [key, `${response.statusCode} ${response.body.replace(/"request_id":"[^"]*"/, '')}`] as const
  })))
  const before = await read()

  const other = await signup(app)
  const theirs = await resourcesOf(app, other)
  const after = await read()
  // Integer ids (instances) are no markers: "2" is in any body. The equal-answers check above covers them.
  const markers = [other.user.tenant_id, other.user.email, ...Object.values(theirs)].filter((marker) => !/^\d+$/.test(marker))
  for (const key of collections) {
    t.same(after[key], before[key], `${key}: the same answer whatever another tenant holds`)
    t.same(markers.filter((marker) => after[key]!.includes(marker)), [], `${key}: none of the other tenant's ids`)
  }
  t.ok(collections.length >= 10, `${collections.length} collection routes read`)
})
