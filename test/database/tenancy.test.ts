import t from 'tap'
import { Type } from 'typebox'
import { ACROSS_TENANTS, scopedEntityManager } from '../../database/tenancy.ts'
import { PortalSession } from '../../plugins/app/auth/session.entity.ts'
import { Tenant } from '../../plugins/app/tenants/tenant.entity.ts'
import { User } from '../../plugins/app/users/user.entity.ts'
import { UserNotFound } from '../../plugins/app/users/users.errors.ts'
import { bearer, signup } from '../support/accounts.ts'
import { build } from '../support/build.ts'

/** A tenant-owned route written the way every later route is: request.em, no tenant in the query. */
const routes = (app: import('fastify').FastifyInstance) => {
  app.get('/api/test/users/:id', { schema: { params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } }, async (request) => {
    const user = await request.em.findOne(User, { id: (request.params as { id: string }).id })
    if (user === null) throw UserNotFound()
    return { success: true, user: { id: user.id, email: user.email } }
  })
  app.delete('/api/test/users/:id', { schema: { params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } }, async (request) => {
    const changed = await request.em.nativeUpdate(User, { id: (request.params as { id: string }).id }, { name: 'hijacked' })
    if (changed === 0) throw UserNotFound()
    return { success: true }
  })
}

t.test('another tenant\'s id answers 404 and changes nothing', async (t) => {
  const { app, orm } = await build(t, { routes })
  const alice = await signup(app)
  const bob = await signup(app)

  const own = await app.inject({ method: 'GET', url: `/api/test/users/${alice.user.id}`, headers: bearer(alice.token) })
  t.equal(own.statusCode, 200, 'control: own row is visible')

  const foreign = await app.inject({ method: 'GET', url: `/api/test/users/${bob.user.id}`, headers: bearer(alice.token) })
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'USER_NOT_FOUND')
  const unknown = await app.inject({ method: 'GET', url: '/api/test/users/00000000-0000-4000-8000-000000000000', headers: bearer(alice.token) })
  t.same(foreign.json().error, unknown.json().error, 'indistinguishable from an id that does not exist')

  const write = await app.inject({ method: 'DELETE', url: `/api/test/users/${bob.user.id}`, headers: bearer(alice.token) })
  t.equal(write.statusCode, 404)
  const [row] = await orm.em.getConnection().execute('SELECT name FROM users WHERE id = ?', [bob.user.id])
  t.not(row?.name, 'hijacked', 'the other tenant\'s row is unchanged')
})

t.test('the tenant comes from the token, not from anything the client sends', async (t) => {
  const { app } = await build(t, { routes })
  const alice = await signup(app)
  const bob = await signup(app)
  const spoofed = await app.inject({
    method: 'GET',
    url: `/api/test/users/${bob.user.id}?tenant_id=${bob.user.tenant_id}`,
    headers: { ...bearer(alice.token), 'x-tenant-id': bob.user.tenant_id }
  })
  t.equal(spoofed.statusCode, 404)
})

t.test('a scoped EntityManager sees only its tenant, for reads, updates and deletes', async (t) => {
  const { app, orm } = await build(t)
  const alice = await signup(app)
  const bob = await signup(app)
  const em = scopedEntityManager(orm.em, alice.user.tenant_id)

  t.same((await em.find(User, {})).map((u) => u.id), [alice.user.id], 'find')
  t.equal(await em.findOne(User, bob.user.id), null, 'findOne by primary key')
  t.equal(await em.count(User, {}), 1, 'count')
  t.same((await em.find(Tenant, {})).map((x) => x.id), [alice.user.tenant_id], 'the tenants table itself')
  t.equal(await em.findOne(User, { email: bob.email }), null, 'lookup by another unique column')
  t.equal(await em.nativeUpdate(User, { id: bob.user.id }, { name: 'x' }), 0, 'nativeUpdate')
  t.equal(await em.nativeDelete(PortalSession, { user: bob.user.id }), 0, 'nativeDelete')
  t.equal(await em.count(PortalSession, {}), 1, 'only its own sessions')

  const all = orm.em.fork()
  t.equal(await all.count(PortalSession, {}, ACROSS_TENANTS), 2, 'bob\'s session survived')
})

t.test('a query on tenant-owned rows without a tenant fails instead of reading everything', async (t) => {
  const { app, orm } = await build(t)
  await signup(app)
  const unscoped = orm.em.fork()
  await t.rejects(unscoped.find(User, {}), /No arguments provided for filter 'tenant'/)
  await t.rejects(unscoped.nativeUpdate(User, {}, { name: 'x' }), /No arguments provided for filter 'tenant'/)
  t.equal(await unscoped.count(User, {}, ACROSS_TENANTS), 1, 'crossing tenants has to be asked for by name')
})
