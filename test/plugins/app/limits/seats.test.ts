import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'

/** A subscription with `users` seats in the given status, straight in the database. */
async function subscribe (app: FastifyInstance, tenantId: string, users: number, status = 'active'): Promise<void> {
  const [plan] = await app.sql<{ id: number }>({
    text: `INSERT INTO plans (code, name, description, active, is_trial, trial_days, currency, base_price_monthly, included_users, extra_user_price_monthly,
             storage_limit_gb, storage_overage_price, max_users, max_instances, max_workers, annual_discount_bps, features, sequence, created_at, updated_at)
           VALUES ('seats-' || substr(md5(random()::text), 1, 12), 'Seats', '', true, false, 0, 'EUR', 1000, 1, 100, 10, 10, 100, 1, 1, 0, '[]', 1, now(), now()) RETURNING id`,
    values: []
  })
  await app.sql({
    text: `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount, amount_due, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, $3, 'monthly', $4, 0, 1, 1, 'EUR', 1000, 0, now(), now())`,
    values: [tenantId, plan!.id, status, users]
  })
}

const create = (app: FastifyInstance, token: string, email: string) => app.inject({
  method: 'POST', url: '/api/users/create', headers: bearer(token), payload: { email, name: 'New', password: 'a long enough password' }
})

t.test('without a subscription nothing is limited; with one, users beyond its seats are refused with 402', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  t.equal((await create(app, admin.token, 'free-1@example.com')).statusCode, 201, 'no subscription: no limit')

  await subscribe(app, admin.user.tenant_id, 2)
  const refused = await create(app, admin.token, 'over@example.com')
  t.equal(refused.statusCode, 402)
  t.equal(refused.json().error.code, 'PLAN_USER_LIMIT_REACHED')
  t.same(refused.json().error.details, { limit: 2, used: 2 })

  const members = (await app.inject({ method: 'GET', url: '/api/users', headers: bearer(admin.token) })).json().users
  const other = members.find((u: { id: string }) => u.id !== admin.user.id)
  await app.inject({ method: 'DELETE', url: `/api/users/${other.id}`, headers: bearer(admin.token) })
  t.equal((await create(app, admin.token, 'after-deactivation@example.com')).statusCode, 201, 'a deactivated user frees the seat')
})

t.test('every subscription binds except a first checkout still waiting for its payment', async (t) => {
  const { app } = await build(t)
  for (const [status, binds] of [['trialing', true], ['past_due', true], ['expired', true], ['cancelled', true], ['pending_payment', false]] as const) {
    const admin = await signup(app)
    await subscribe(app, admin.user.tenant_id, 1, status)
    const response = await create(app, admin.token, `${status}-${admin.user.id}@example.com`)
    t.equal(response.statusCode, binds ? 402 : 201, status)
  }
  const changingPlan = await signup(app)
  await subscribe(app, changingPlan.user.tenant_id, 1, 'pending_payment')
  await app.sql({ text: 'UPDATE subscriptions SET activated_at = now() WHERE tenant_id = $1', values: [changingPlan.user.tenant_id] })
  t.equal((await create(app, changingPlan.token, `plan-change-${changingPlan.user.id}@example.com`)).statusCode, 402, 'a paying tenant changing plans keeps its limits')
})

t.test('an invitation accepted beyond the seats is refused and stays pending', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const invite = await app.inject({ method: 'POST', url: '/api/users/invite', headers: bearer(admin.token), payload: { email: 'seat@example.com', name: 'Seat', role: 'user' } })
  t.equal(invite.statusCode, 201)
  const [row] = await app.sql<{ token_hash: string }>({ text: 'SELECT token_hash FROM invitations WHERE id = $1', values: [invite.json().invitation.id] })
  // The token itself is only in the e-mail; give the invitation a known one.
  const { createHash } = await import('node:crypto')
  const token = 'seat-test-token-0123456789abcdef0123456789'
  await app.sql({ text: 'UPDATE invitations SET token_hash = $1 WHERE token_hash = $2', values: [createHash('sha256').update(token).digest('hex'), row!.token_hash] })

  await subscribe(app, admin.user.tenant_id, 1)
  const accept = await app.inject({ method: 'POST', url: '/api/users/invitation/accept', payload: { token, password: 'a long enough password' } })
  t.equal(accept.statusCode, 402)
  t.equal(accept.json().error.code, 'PLAN_USER_LIMIT_REACHED')
  const [after] = await app.sql<{ status: string }>({ text: 'SELECT status FROM invitations WHERE id = $1', values: [invite.json().invitation.id] })
  t.equal(after?.status, 'pending', 'the invitation can be accepted once a seat is free')
  const [users] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM users WHERE email = 'seat@example.com'", values: [] })
  t.equal(users?.n, 0)
})

t.test('five additions racing for the last seat: exactly one gets it', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  await addMember(app, admin.user.tenant_id)
  await subscribe(app, admin.user.tenant_id, 3)
  const results = await Promise.all([1, 2, 3, 4, 5].map((i) => create(app, admin.token, `race-${i}@example.com`)))
  t.same(results.map((r) => r.statusCode).sort(), [201, 402, 402, 402, 402])
  const [row] = await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND active', values: [admin.user.tenant_id] })
  t.equal(row?.n, 3)
})
