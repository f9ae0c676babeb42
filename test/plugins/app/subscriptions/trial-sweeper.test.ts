import t from 'tap'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { createTrialSweeper, TRIAL_EXPIRY_JOB } from '../../../../plugins/app/subscriptions/trial-sweeper.job.ts'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { insertTrialPlan } from '../../../support/billing-fixtures.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { recordingLogger } from '../../../support/mail-outbox-db.ts'

/** A tenant on a trial that ended a minute ago (the sweep has not run yet). */
async function dueTrial (app: FastifyInstance, planId: number): Promise<string> {
  const admin = await signup(app)
  const response = await app.inject({ method: 'POST', url: '/api/subscription/demo', headers: bearer(admin.token), payload: { plan_id: planId } })
  if (response.statusCode !== 200) throw new Error(response.body)
  await app.sql({ text: "UPDATE subscriptions SET trial_ends_at = now() - interval '1 minute' WHERE tenant_id = $1", values: [admin.user.tenant_id] })
  return admin.user.tenant_id
}

const statusOf = async (app: FastifyInstance, tenantId: string) =>
  (await app.sql<{ status: string }>({ text: 'SELECT status FROM subscriptions WHERE tenant_id = $1', values: [tenantId] }))[0]?.status

t.test('a row locked elsewhere is skipped, not waited for, and taken by a later sweep', async (t) => {
  const { app, databaseUrl } = await build(t)
  const plan = await insertTrialPlan(app)
  const locked = await dueTrial(app, plan.id)
  const free = await dueTrial(app, plan.id)
  const other = new pg.Client({ connectionString: databaseUrl })
  await other.connect()
  t.teardown(() => other.end())
  await other.query('BEGIN')
  await other.query('SELECT id FROM subscriptions WHERE tenant_id = $1 FOR UPDATE', [locked])

  t.same(await app.subscriptions.sweepTrialsNow(), { expired: 1 }, 'only the unlocked one')
  t.equal(await statusOf(app, free), 'expired')
  await other.query('ROLLBACK')
  t.same(await app.subscriptions.sweepTrialsNow(), { expired: 1 })
  t.equal(await statusOf(app, locked), 'expired')
})

t.test('batches: every due trial ends in one sweep however many there are', async (t) => {
  const { app } = await build(t)
  const plan = await insertTrialPlan(app)
  const tenants = await Promise.all([1, 2, 3, 4, 5].map(() => dueTrial(app, plan.id)))
  const sweeper = createTrialSweeper({ em: app.orm.em, subscriptions: app.subscriptions, log: recordingLogger(), batchSize: 2 })
  t.same(await sweeper.sweep(), { expired: 5 })
  for (const tenant of tenants) t.equal(await statusOf(app, tenant), 'expired')
})

t.test('the app schedules the sweep itself, every TRIAL_SWEEP_SECONDS', async (t) => {
  const { app } = await build(t, { env: { TRIAL_SWEEP_SECONDS: '5' } })
  t.match(await app.jobs.boss.getSchedules(TRIAL_EXPIRY_JOB), [{ name: TRIAL_EXPIRY_JOB, cron: '* * * * *' }], 'a pg-boss schedule, every minute (5 s passes inside)')
  const tenant = await dueTrial(app, (await insertTrialPlan(app)).id)
  await waitFor(async () => await statusOf(app, tenant) === 'expired' ? true : undefined, 20_000, 'the app\'s own sweep')
  t.pass('expired without anyone calling sweepTrialsNow')
})

t.test('a sweep interval of minutes is a cron in minutes', async (t) => {
  const { app } = await build(t, { env: { TRIAL_SWEEP_SECONDS: '300' } })
  t.match(await app.jobs.boss.getSchedules(TRIAL_EXPIRY_JOB), [{ cron: '*/5 * * * *' }])
})
