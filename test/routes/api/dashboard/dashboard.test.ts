import pg from 'pg'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { fillTenant } from '../../../support/data.ts'

/**
 * Counts every statement sent while `fn` runs, on the client class of the
 * ORM's own pool (MikroORM brings its own copy of pg; the hot-path SQL shares that pool).
 */
async function countStatements (app: FastifyInstance, fn: () => Promise<unknown>): Promise<number> {
  const pool = await app.orm.em.getConnection().getNativeClient() as unknown as { Client: typeof pg.Client }
  const prototype = pool.Client.prototype
  const original = prototype.query
  let count = 0
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    // The mail dispatcher polls on the same pool now and then: not the dashboard's doing.
    if (!JSON.stringify(args[0] ?? '').includes('mail_outbox')) count++
    return (original as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof original
  try {
    await fn()
  } finally {
    prototype.query = original
  }
  return count
}

const dashboard = async (app: FastifyInstance, token: string) => {
  const response = await app.inject({ method: 'GET', url: '/api/dashboard', headers: bearer(token) })
  if (response.statusCode !== 200) throw new Error(response.body)
  return response.json().dashboard
}

t.test('the home screen in one call', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app, { company: 'Acme Dashboards' })
  await addMember(app, admin.user.tenant_id)
  await fillTenant(app, admin.user.tenant_id, { tickets: 6, instances: 3, activities: 15 })
  await signup(app) // another tenant, invisible here
  const d = await dashboard(app, admin.token)

  t.match(d, { company: 'Acme Dashboards',  email: admin.email, status: 'active', subscription: null, configuration: null })
  t.equal(d.tenant.id, admin.user.tenant_id)
  t.match(d.version, /^\d+\.\d+\.\d+/)
  t.equal(d.instances.length, 3)
  t.same(d.statistics.users, { total: 2, active: 2, admins: 1 })
  t.same(d.statistics.tickets, { open: 4, answered: 0 })
  t.equal(d.statistics.instances.total, 3)
  t.equal(d.statistics.instances.by_state.running, 1)
  t.equal(d.statistics.instances.by_state.stopped, 2)
  t.equal(d.statistics.instances.by_state.error, 0, 'every state is listed, zeros included')

  const feed = (await app.inject({ method: 'GET', url: '/api/activity?limit=10', headers: bearer(admin.token) })).json().activities
  t.equal(d.activities.length, 10)
  t.same(d.activities, feed, 'the same records as the feed')
  t.ok(d.activities.every((a: { id: unknown, title: unknown }) => Number.isInteger(a.id) && typeof a.title === 'string'))
})

t.test('the number of SQL statements does not grow with the data', async (t) => {
  const { app } = await build(t)
  const small = await signup(app)
  const large = await signup(app)
  await fillTenant(app, large.user.tenant_id, { users: 50, tickets: 50, instances: 50, activities: 200 })

  await dashboard(app, small.token) // warm up: prepared statements, metadata
  const forSmall = await countStatements(app, () => dashboard(app, small.token))
  const forLarge = await countStatements(app, () => dashboard(app, large.token))
  t.equal(forLarge, forSmall, `${forSmall} statements either way`)
  t.equal(forSmall, 4, 'the token check and three statements')
})
