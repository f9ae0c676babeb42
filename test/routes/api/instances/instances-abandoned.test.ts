/**
 * No instance stays in a transitional state once its job is over: the
 * reconciler's round moves an instance whose job failed, was cancelled or is
 * gone to `error` with the reason, and leaves one whose job is still live.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { instanceRow, recordInstance } from '../../../support/instance-rows.ts'

async function recordJob (app: FastifyInstance, instanceId: number, tenantId: string, action: string, state: string, error?: string): Promise<void> {
  await app.sql({
    text: `INSERT INTO pgboss.job (name, data, state, output, started_on, completed_on)
      VALUES ('instance-actions', $1::jsonb, $2::pgboss.job_state, $3::jsonb, now(), CASE WHEN $2 = 'active' THEN NULL ELSE now() END)`,
    values: [JSON.stringify({ instanceId, tenantId, action }), state, error === undefined ? null : JSON.stringify({ message: error })]
  })
}

t.test('instances whose job ended without finishing move to error with the reason; live jobs are left alone', async (t) => {
  const { app } = await build(t, { env: { RECONCILE_SECONDS: 3600 } })
  const admin = await signup(app)
  const tenant = admin.user.tenant_id as string

  const failed = await recordInstance(app, tenant, { state: 'stopping' })
  await recordJob(app, failed, tenant, 'stop', 'failed', 'job timed out')
  const cancelled = await recordInstance(app, tenant, { state: 'restarting' })
  await recordJob(app, cancelled, tenant, 'restart', 'cancelled')
  const gone = await recordInstance(app, tenant, { state: 'provisioning' })
  const deleting = await recordInstance(app, tenant, { state: 'deleting' })
  await recordJob(app, deleting, tenant, 'delete', 'failed', 'the engine went away')
  const working = await recordInstance(app, tenant, { state: 'starting' })
  await recordJob(app, working, tenant, 'start', 'failed', 'first attempt')
  await recordJob(app, working, tenant, 'start', 'active')
  const steady = await recordInstance(app, tenant, { state: 'running', backend: 'kubernetes' })

  const round = await app.instances.reconcileNow()
  t.equal(round.abandoned, 4)

  const message = async (id: number) => (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(await message(failed), { state: 'error', status_message: 'The stop job ended (failed) without finishing: job timed out' })
  t.match(await message(cancelled), { state: 'error', status_message: 'The restart job ended (cancelled) without finishing' })
  t.match(await message(gone), { state: 'error', status_message: 'The provision job is gone from the queue without finishing' })
  t.match(await message(deleting), { state: 'error', status_message: 'The delete job ended (failed) without finishing: the engine went away' })
  t.equal((await instanceRow(app, working)).state, 'starting', 'a job still at work keeps its instance')
  t.equal((await instanceRow(app, steady)).state, 'running', 'steady states are the reconciler\'s other half')

  const records = await app.sql<{ actor_id: string, title: string }>({
    text: 'SELECT actor_id, title FROM activities WHERE instance_id = $1 ORDER BY id', values: [failed]
  })
  t.match(records, [{ actor_id: 'instance-job-supervisor', title: /failed: The stop job ended \(failed\)/ }], 'in the activity feed, by the supervisor')

  t.equal((await app.instances.reconcileNow()).abandoned, 0, 'a second round changes nothing')
})

t.test('an instance left restoring by a restore job that ended (in place or as a new instance) moves to error', async (t) => {
  const { app } = await build(t, { env: { RECONCILE_SECONDS: 3600 } })
  const admin = await signup(app)
  const tenant = admin.user.tenant_id as string
  const restoreJob = async (instanceId: number, state: string, error?: string) => app.sql({
    text: `INSERT INTO pgboss.job (name, data, state, output, started_on, completed_on)
      VALUES ('instance-backups', $1::jsonb, $2::pgboss.job_state, $3::jsonb, now(), CASE WHEN $2 = 'active' THEN NULL ELSE now() END)`,
    values: [JSON.stringify({ backupId: 1, tenantId: tenant, action: 'restore', instanceId }), state, error === undefined ? null : JSON.stringify({ message: error })]
  })
  const failed = await recordInstance(app, tenant, { state: 'restoring' })
  await restoreJob(failed, 'failed', 'pg_restore exited with code 1')
  const gone = await recordInstance(app, tenant, { state: 'restoring' })
  const working = await recordInstance(app, tenant, { state: 'restoring' })
  await restoreJob(working, 'active')
  const round = await app.instances.reconcileNow()
  t.equal(round.abandoned, 2)
  t.match(await instanceRow(app, failed), { state: 'error' })
  t.match(await instanceRow(app, gone), { state: 'error' })
  t.equal((await instanceRow(app, working)).state, 'restoring', 'a restore still at work keeps its instance')
  const message = (await app.inject({ method: 'GET', url: `/api/instances/${failed}`, headers: bearer(admin.token) })).json().instance.status_message
  t.equal(message, 'The restore job ended (failed) without finishing: pg_restore exited with code 1')
})
