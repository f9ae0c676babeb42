/**
 * What a staging copy request refuses, before anything is recorded or queued (the whole app on the
 * fake Kubernetes API server, whose Jobs nobody ends here): another company's or an unknown
 * instance, a member, a staging copy of a staging copy, a backup of another instance or one not
 * completed, the plan's instance limit unless the plan says staging copies do not count; and the
 * plan catalog showing that field.
 */
import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { insertPlan } from '../../../support/billing-fixtures.ts'
import { uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { createStagingExpiry } from '../../../../plugins/app/staging/staging-expiry.job.ts'

const counts = async (app: Awaited<ReturnType<typeof kubeApp>>['app']) => {
  const [row] = await app.sql<{ instances: number, backups: number, jobs: number }>({
    text: "SELECT (SELECT count(*) FROM instances)::int AS instances, (SELECT count(*) FROM backups)::int AS backups, (SELECT count(*) FROM pgboss.job WHERE name = 'instance-backups')::int AS jobs", values: []
  })
  return row
}

t.test('refusals change nothing', async (t) => {
  const context = await kubeApp(t)
  const { app, admin, id } = context
  const post = (instanceId: number, payload: Record<string, unknown>, token = admin.token) =>
    app.inject({ method: 'POST', url: `/api/instances/${instanceId}/staging`, headers: bearer(token), payload })
  const backupId = await completedBackup(context, id)

  const stranger = await signup(app)
  const foreign = await post(id, {}, stranger.token)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND', 'another company\'s instance')
  t.equal((await post(987654, {})).json().error.code, 'INSTANCE_NOT_FOUND', 'an unknown instance')
  const member = await addMember(app, admin.user.tenant_id)
  const byMember = await post(id, {}, member.token)
  t.equal(byMember.statusCode, 403)
  t.equal(byMember.json().error.code, 'FORBIDDEN', 'admins only')

  // Another instance of the company, and a backup of it: not a backup of this parent.
  const [other] = await app.sql<{ id: string }>({
    text: `INSERT INTO instances (tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, kind, parent_id, expires_at, created_at, updated_at)
      VALUES ($1, 'Copy', $2, '17.0', 'kubernetes', 'running', 'odoo:17.0', 1024, 1000, 10, 'staging', $3, now() + interval '30 days', now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, uniqueSubdomain('st'), id]
  })
  const stagingId = Number(other?.id)
  const [foreignBackup] = await app.sql<{ id: string }>({
    text: `INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, created_at, updated_at) VALUES ($1, $2, 'completed', 'manual', '17.0', now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, stagingId]
  })
  const before = await counts(app)
  const ofStaging = await post(stagingId, {})
  t.equal(ofStaging.statusCode, 409)
  t.equal(ofStaging.json().error.code, 'STAGING_OF_STAGING', 'no staging copy of a staging copy')
  t.match(ofStaging.json().error.message, /production instance/)
  const notOurs = await post(id, { from_backup_id: Number(foreignBackup?.id) })
  t.equal(notOurs.statusCode, 404)
  t.equal(notOurs.json().error.code, 'BACKUP_NOT_FOUND', 'a backup of another instance')
  t.equal((await post(id, { from_backup_id: 987654 })).json().error.code, 'BACKUP_NOT_FOUND', 'an unknown backup')
  await app.sql({ text: "UPDATE backups SET state = 'failed' WHERE id = $1", values: [backupId] })
  const failed = await post(id, { from_backup_id: backupId })
  t.equal(failed.statusCode, 409)
  t.equal(failed.json().error.code, 'BACKUP_NOT_COMPLETED', 'only a completed backup')
  await app.sql({ text: "UPDATE backups SET state = 'completed' WHERE id = $1", values: [backupId] })
  t.equal((await post(id, { subdomain: 'www' })).json().error.code, 'SUBDOMAIN_RESERVED')
  t.equal((await post(id, { subdomain: context.subdomain })).json().error.code, 'SUBDOMAIN_TAKEN')
  t.equal((await post(id, { from_backup_id: 'x' })).statusCode, 400, 'a malformed body')

  t.same(await counts(app), before, 'no instance, backup or job was recorded by a refusal')

  // The plan's limit: one instance, taken by the production one.
  const plan = await insertPlan(app, { maxInstances: 1 })
  await app.sql({ text: "UPDATE instances SET state = 'deleted' WHERE id = $1", values: [stagingId] })
  await app.sql({
    text: `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount, amount_due, activated_at, created_at, updated_at)
      VALUES (gen_random_uuid(), $1, $2, 'active', 'monthly', 5, 0, 0, 1, 'EUR', 0, 0, now(), now(), now())`,
    values: [admin.user.tenant_id, plan.id]
  })
  const limited = await post(id, { from_backup_id: backupId })
  t.equal(limited.statusCode, 402)
  t.equal(limited.json().error.code, 'PLAN_INSTANCE_LIMIT_REACHED', 'a staging copy takes a slot by default')
  await app.sql({ text: 'UPDATE plans SET staging_counts_in_limit = false WHERE id = $1', values: [plan.id] })
  const free = await post(id, { from_backup_id: backupId })
  t.equal(free.statusCode, 202, `a plan whose staging copies do not count: ${free.body}`)
  t.match(free.json().instance, { kind: 'staging', parent_id: id, subdomain: `${context.subdomain}-staging` })
  const second = await post(id, { from_backup_id: backupId })
  t.equal(second.statusCode, 202, 'nor does a second one')
  t.equal(second.json().instance.subdomain, `${context.subdomain}-staging-2`, 'the default subdomain gets a number when taken')
  const create = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'More', subdomain: uniqueSubdomain('mo'), erp_version: '17.0', backend: 'kubernetes' } })
  t.equal(create.json().error?.code, 'PLAN_INSTANCE_LIMIT_REACHED', 'production instances still count, staging copies not')
})

t.test('the plan catalog shows whether staging copies count', async (t) => {
  const { app } = await kubeApp(t)
  const plan = await insertPlan(app, { stagingCountsInLimit: false })
  const plans = (await app.inject({ method: 'GET', url: '/api/plans' })).json().plans as Array<{ code: string, staging_counts_in_limit: boolean }>
  for (const each of plans) t.type(each.staging_counts_in_limit, 'boolean', `${each.code} says it`)
  t.equal(plans.find((p) => p.code === plan.code)?.staging_counts_in_limit, false)
})

t.test('expiry: one warning e-mail to the admins 3 days before, then deletion through the delete path at expiry', async (t) => {
  const context = await kubeApp(t)
  const { app, admin, id } = context
  const member = await addMember(app, admin.user.tenant_id)
  const otherAdmin = await addMember(app, admin.user.tenant_id, { role: 'admin' })
  const expiresAt = new Date('2026-12-20T12:00:00Z')
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO instances (tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, workers, kind, parent_id, expires_at, created_at, updated_at)
      VALUES ($1, 'Copy', $2, '17.0', 'kubernetes', 'running', 'odoo:17.0', 1024, 1000, 10, 1, 'staging', $3, $4, now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, uniqueSubdomain('st'), id, expiresAt]
  })
  const copyId = Number(row?.id)
  let now = new Date('2026-12-17T11:00:00Z')
  const expiry = createStagingExpiry({ em: app.orm.em, sql: app.sql, activity: app.activity, mail: app.mail, instances: app.instances, baseUrl: 'https://portal.test', log: app.log, now: () => now })
  const mails = async () => app.sql<{ recipient: string, subject: string }>({ text: "SELECT recipient, subject FROM mail_outbox WHERE kind = 'staging-expiring' ORDER BY recipient", values: [] })
  const state = async (instanceId: number) => (await app.sql<{ state: string }>({ text: 'SELECT state FROM instances WHERE id = $1', values: [instanceId] }))[0]?.state

  t.same(await expiry.run(), { warned: 0, deleted: 0 }, 'more than 3 days before: nothing')
  t.same(await mails(), [])
  now = new Date('2026-12-17T12:30:00Z')
  t.same(await expiry.run(), { warned: 1, deleted: 0 }, 'within 3 days: warned')
  t.same((await mails()).map((m) => m.recipient).sort(), [admin.email, otherAdmin.email].sort(), 'each admin, not the member')
  t.notOk((await mails()).some((m) => m.recipient === member.email))
  t.match((await mails())[0]?.subject, /Copy expires on 2026-12-20 12:00 UTC/)
  now = new Date('2026-12-19T12:00:00Z')
  t.same(await expiry.run(), { warned: 0, deleted: 0 }, 'warned once')
  t.equal((await mails()).length, 2)
  t.equal(await state(copyId), 'running')
  t.equal(await state(id), 'running')

  now = new Date('2026-12-20T12:00:01Z')
  t.same(await expiry.run(), { warned: 0, deleted: 1 }, 'at expiry: deleted')
  t.ok(['deleting', 'deleted'].includes(await state(copyId) ?? ''), 'through the delete path')
  t.same(await expiry.run(), { warned: 0, deleted: 0 }, 'once')
  t.equal((await waitForState(app, admin.token, copyId, ['deleted'], 30_000)).state, 'deleted')
  t.equal(await state(id), 'running', 'the production instance is left alone')
  const types = (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [copyId] })).map((r) => r.type)
  t.ok(types.includes('instance.staging_expiring'))
  t.ok(types.includes('instance.staging_expired'))
  t.ok(types.includes('instance.deleted'))
})

t.test('expiry: a deletion and the record of why go together; when the record fails, nothing is deleted and the next pass does both', async (t) => {
  const { app, admin, id } = await kubeApp(t)
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO instances (tenant_id, name, subdomain, erp_version, backend, state, image, memory_mb, cpu_millicores, storage_gb, workers, kind, parent_id, expires_at, created_at, updated_at)
      VALUES ($1, 'Expired', $2, '17.0', 'kubernetes', 'running', 'odoo:17.0', 1024, 1000, 10, 1, 'staging', $3, now() - interval '1 minute', now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, uniqueSubdomain('st'), id]
  })
  const copyId = Number(row?.id)
  const recorded = async () => (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [copyId] })).map((r) => r.type)
  const state = async () => (await app.sql<{ state: string }>({ text: 'SELECT state FROM instances WHERE id = $1', values: [copyId] }))[0]?.state
  const deps = { em: app.orm.em, sql: app.sql, mail: app.mail, instances: app.instances, baseUrl: 'https://portal.test', log: { warn: () => {} } }
  const failingActivity = {
    ...app.activity,
    record: (...args: Parameters<typeof app.activity.record>) => {
      if (args[2].type === 'instance.staging_expired') throw new Error('the activity table is not writable')
      return app.activity.record(...args)
    }
  }

  t.same(await createStagingExpiry({ ...deps, activity: failingActivity }).run(), { warned: 0, deleted: 0 }, 'the record failed: not deleted')
  t.equal(await state(), 'running', 'the copy is still running')
  t.same(await recorded(), [], 'and no transition was recorded either')
  const [queued] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'instanceId' = $1", values: [String(copyId)] })
  t.equal(queued?.n, 0, 'no delete job queued')

  t.same(await createStagingExpiry({ ...deps, activity: app.activity }).run(), { warned: 0, deleted: 1 }, 'the next pass deletes it')
  t.equal(await state(), 'deleting')
  t.same(await recorded(), ['instance.deleting', 'instance.staging_expired'], 'the transition and the record of why, in one transaction')
})
