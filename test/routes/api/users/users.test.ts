import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'

const activityTypes = async (app: import('fastify').FastifyInstance, tenantId: string) =>
  (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE tenant_id = $1 ORDER BY id', values: [tenantId] })).map((r) => r.type)

t.test('list shows the tenant\'s users with the documented fields, and nobody else\'s', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id, { name: 'Zed Member' })
  const stranger = await signup(app)

  const response = await app.inject({ method: 'GET', url: '/api/users', headers: bearer(member.token) })
  t.equal(response.statusCode, 200, 'any member may list')
  const users = response.json().users
  t.same(users.map((u: { id: string }) => u.id).sort(), [admin.user.id, member.user.id].sort())
  t.notOk(users.some((u: { id: string }) => u.id === stranger.user.id))
  const adminRow = users.find((u: { id: string }) => u.id === admin.user.id)
  t.same(Object.keys(adminRow).sort(), ['active', 'created_at', 'email', 'id', 'last_login', 'login', 'name', 'role'])
  t.match(adminRow, { role: 'admin', active: true, login: admin.email, email: admin.email })
  t.ok(adminRow.last_login, 'last login filled after signup')
})

t.test('an admin adds a user who can log in at once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const created = await app.inject({
    method: 'POST', url: '/api/users/create', headers: bearer(admin.token),
    payload: { email: 'New.Person@Example.com', name: 'New Person', password: 'a good long password' }
  })
  t.equal(created.statusCode, 201)
  t.match(created.json().user, { email: 'new.person@example.com', name: 'New Person', role: 'user', active: true, last_login: null })
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { login: 'new.person@example.com', password: 'a good long password' } })
  t.equal(login.statusCode, 200)
  t.equal(login.json().user.tenant_id, admin.user.tenant_id)
  t.same(await activityTypes(app, admin.user.tenant_id), ['user.created'])
})

t.test('create refuses duplicates (in any company), weak passwords and non-admins', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const other = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const create = (token: string, body: Record<string, string>) => app.inject({ method: 'POST', url: '/api/users/create', headers: bearer(token), payload: body })

  const dup = await create(admin.token, { email: other.email.toUpperCase(), name: 'X', password: 'a good long password' })
  t.equal(dup.statusCode, 409)
  t.equal(dup.json().error.code, 'EMAIL_TAKEN')
  const weak = await create(admin.token, { email: 'weak@example.com', name: 'X', password: 'weak@example.com' })
  t.equal(weak.statusCode, 400)
  t.equal(weak.json().error.code, 'WEAK_PASSWORD')
  const short = await create(admin.token, { email: 'short@example.com', name: 'X', password: 'short' })
  t.equal(short.statusCode, 400)
  const forbidden = await create(member.token, { email: 'by-member@example.com', name: 'X', password: 'a good long password' })
  t.equal(forbidden.statusCode, 403)
  t.equal(forbidden.json().error.code, 'FORBIDDEN')
  const [row] = await app.orm.em.getConnection().execute("SELECT count(*)::int AS n FROM users WHERE email IN ('weak@example.com', 'short@example.com', 'by-member@example.com')")
  t.equal(row?.n, 0, 'nothing created')
})

t.test('deactivation is soft, stops the user\'s tokens at once, and protects yourself', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)

  const self = await app.inject({ method: 'DELETE', url: `/api/users/${admin.user.id}`, headers: bearer(admin.token) })
  t.equal(self.statusCode, 409)
  t.equal(self.json().error.code, 'CANNOT_DEACTIVATE_SELF')

  const done = await app.inject({ method: 'DELETE', url: `/api/users/${member.user.id}`, headers: bearer(admin.token) })
  t.equal(done.statusCode, 200)
  t.equal(done.json().user.active, false)
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(member.token) })).statusCode, 401, 'token dead at once')
  t.equal((await app.inject({ method: 'POST', url: '/api/login', payload: { login: member.email, password: member.password } })).json().error.code, 'ACCOUNT_DISABLED')
  const listed = (await app.inject({ method: 'GET', url: '/api/users', headers: bearer(admin.token) })).json().users
  t.ok(listed.some((u: { id: string, active: boolean }) => u.id === member.user.id && !u.active), 'the record stays')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/users/${member.user.id}`, headers: bearer(admin.token) })).statusCode, 200, 'again: no-op')
  t.same(await activityTypes(app, admin.user.tenant_id), ['user.deactivated'], 'recorded once')
})

t.test('two admins deactivating each other at once: exactly one succeeds', async (t) => {
  const { app, orm } = await build(t)
  const a = await signup(app)
  const b = await addMember(app, a.user.tenant_id, { role: 'admin' })
  const [ab, ba] = await Promise.all([
    app.inject({ method: 'DELETE', url: `/api/users/${b.user.id}`, headers: bearer(a.token) }),
    app.inject({ method: 'DELETE', url: `/api/users/${a.user.id}`, headers: bearer(b.token) })
  ])
  t.same([ab.statusCode, ba.statusCode].sort(), [200, 409])
  t.equal([ab, ba].find((r) => r.statusCode === 409)?.json().error.code, 'LAST_ADMIN')
  const [row] = await orm.em.getConnection().execute("SELECT count(*)::int AS n FROM users WHERE tenant_id = ? AND role = 'admin' AND active", [a.user.tenant_id])
  t.equal(row?.n, 1, 'one active admin remains')
})

t.test('roles: promote, demote, the last admin stays, bad values list the allowed ones', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const setRole = (token: string, id: string, role: unknown) => app.inject({ method: 'PUT', url: `/api/users/${id}/role`, headers: bearer(token), payload: { role } })

  const bad = await setRole(admin.token, member.user.id, 'owner')
  t.equal(bad.statusCode, 400)
  t.same(bad.json().error.details.fields[0].allowed, ['admin', 'user'])

  t.equal((await setRole(member.token, member.user.id, 'admin')).statusCode, 403, 'a user cannot promote themselves')
  const lastAdmin = await setRole(admin.token, admin.user.id, 'user')
  t.equal(lastAdmin.statusCode, 409)
  t.equal(lastAdmin.json().error.code, 'LAST_ADMIN')

  const promoted = await setRole(admin.token, member.user.id, 'admin')
  t.equal(promoted.json().user.role, 'admin')
  const me = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(member.token) })
  t.equal(me.json().user.is_admin, true, 'takes effect on the next request')
  t.equal((await setRole(member.token, admin.user.id, 'user')).statusCode, 200, 'with two admins, one may be demoted')
  t.same(await activityTypes(app, admin.user.tenant_id), ['user.role_changed', 'user.role_changed'])
})

t.test('another tenant\'s user id answers 404 and changes nothing', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const other = await signup(app)
  const otherMember = await addMember(app, other.user.tenant_id)
  for (const request of [
    { method: 'DELETE' as const, url: `/api/users/${otherMember.user.id}` },
    { method: 'PUT' as const, url: `/api/users/${otherMember.user.id}/role`, payload: { role: 'admin' } }
  ]) {
    const response = await app.inject({ ...request, headers: bearer(admin.token) })
    t.equal(response.statusCode, 404, `${request.method} ${request.url}`)
    t.equal(response.json().error.code, 'USER_NOT_FOUND')
  }
  const [row] = await orm.em.getConnection().execute('SELECT role, active FROM users WHERE id = ?', [otherMember.user.id])
  t.same(row, { role: 'user', active: true })
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(otherMember.token) })).statusCode, 200)
})
