import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { fillTenant } from '../../../support/data.ts'
import { statementsDuring } from '../../../support/statements.ts'

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

  t.match(d, { company: 'Acme Dashboards', email: admin.email, status: 'active', subscription: null, configuration: null })
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
  const forSmall = (await statementsDuring(app, () => dashboard(app, small.token))).length
  const forLarge = (await statementsDuring(app, () => dashboard(app, large.token))).length
  t.equal(forLarge, forSmall, `${forSmall} statements either way`)
  t.equal(forSmall, 1, 'one statement, the token check included')
})

t.test('subscription, configuration and usage against the limits', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  await addMember(app, admin.user.tenant_id)
  const before = await dashboard(app, admin.token)
  t.equal(before.subscription, null)
  t.equal(before.configuration, null)
  t.same(before.statistics.usage.users, { used: 2, limit: null }, 'nothing binds before a subscription')

  const [plan] = await app.sql<{ id: number }>({
    text: `INSERT INTO plans (code, name, description, active, is_trial, trial_days, currency, base_price_monthly, included_users, extra_user_price_monthly,
             storage_limit_gb, storage_overage_price, max_users, max_instances, max_workers, annual_discount_bps, features, sequence, created_at, updated_at)
           VALUES ('dash-plan', 'Dashboard Plan', '', true, false, 0, 'EUR', 4990, 5, 900, 10, 50, 20, 3, 4, 1000, '[]', 1, now(), now()) RETURNING id`,
    values: []
  })
  await app.sql({
    text: `INSERT INTO plan_configurations (tenant_id, plan_id, users, storage, workers, instances, billing_cycle, created_at, updated_at)
           VALUES ($1, $2, 5, 10, 2, 2, 'yearly', now(), now())`,
    values: [admin.user.tenant_id, plan!.id]
  })
  await app.sql({
    text: `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount, amount_due,
             current_period_start, current_period_end, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'active', 'yearly', 5, 10, 2, 2, 'EUR', 53892, 0, now(), now() + interval '1 year', now(), now())`,
    values: [admin.user.tenant_id, plan!.id]
  })
  await fillTenant(app, admin.user.tenant_id, { instances: 1 })

  const d = await dashboard(app, admin.token)
  t.match(d.subscription, {
    plan: { id: plan!.id, code: 'dash-plan', name: 'Dashboard Plan' },
    status: 'active',
    billing_cycle: 'yearly',
    amount: 538.92,
    amount_due: 0,
    currency: 'EUR',
    limits: { users: 5, instances: 2, workers: 2, storage: 10 }
  })
  t.ok(new Date(d.subscription.renewal_date).getTime() > Date.now(), 'renewal date ahead')
  t.match(d.configuration, { plan_id: plan!.id, users: 5, storage: 10, workers: 2, instances: 2, billing_cycle: 'yearly' })
  t.same(d.statistics.usage, { users: { used: 2, limit: 5 }, instances: { used: 1, limit: 2 } })
})
