/**
 * Staging copies through the whole app on the fake Kubernetes API server and the real PostgreSQL:
 * made from a completed backup or from a fresh one (the restore waits for it), the ERP's
 * neutralization Job run on the copy's database before its Deployment is scaled up (a failed one
 * leaves the copy in `error`, never started), the parent link both ways, one worker, and a refresh
 * in place. The Jobs are ended by the test, as the cluster would end them.
 */
import t, { type Test } from 'tap'
import { bearer } from '../../../support/accounts.ts'
import { waitForState } from '../../../support/instances.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { waitForBackup } from '../../../support/backups.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { RESTORE_MARK } from '../../../../provisioning/kubernetes/restore-script.ts'
import { RESULT_MARK } from '../../../../provisioning/kubernetes/backup-job.ts'

const slow = { timeoutMs: 30_000, intervalMs: 50 }
type Context = Awaited<ReturnType<typeof kubeApp>>

/** The restore Job of `backupId` into the copy completes, then the Job that settles its filestore. */
async function restoreCompletes (context: Context, backupId: number, uid: string): Promise<void> {
  const { kube, namespace } = context
  const jobName = `erp-restore-${backupId}-${uid.slice(0, 8)}`
  await waitFor(async () => kube.get('Job', namespace, jobName), slow)
  kube.setPodLogs(namespace, jobName, `${RESTORE_MARK} ok\n`)
  kube.completeJob(namespace, jobName)
  const settle = `erp-restore-keep-restored-${uid.slice(0, 8)}`
  await waitFor(async () => kube.get('Job', namespace, settle), slow)
  kube.completeJob(namespace, settle)
}

/** Asks for a staging copy of the context's instance; answers the copy as the 202 shows it. */
async function requestCopy (t: Test, context: Context, body: Record<string, unknown>) {
  const { app, admin, id } = context
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/staging`, headers: bearer(admin.token), payload: body })
  t.equal(response.statusCode, 202, response.body)
  const copy = response.json().instance
  return { copy, uid: await instanceUid(app, copy.id) }
}

const activityTypes = async (context: Context, instanceId: number) =>
  (await context.app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [instanceId] })).map((row) => row.type)

t.test('from a completed backup: made, loaded as a copy, neutralized before its first start, running as a staging copy linked to its parent', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const backupId = await completedBackup(context, id)
  const before = Date.now()
  const { copy, uid } = await requestCopy(t, context, { from_backup_id: backupId })
  t.match(copy, { kind: 'staging', parent_id: id, state: 'restoring', subdomain: `${subdomain}-staging`, name: 'Production (staging)', staging_ids: [] })
  const expires = Date.parse(copy.expires_at)
  t.ok(expires >= before + 30 * 86_400_000 - 60_000 && expires <= Date.now() + 30 * 86_400_000, 'expires STAGING_TTL_DAYS (default 30) from now')
  const copySub: string = copy.subdomain
  await restoreCompletes(context, backupId, uid)

  const neutralizeJob = `erp-${copySub}-neutralize`
  const job = await waitFor(async () => kube.get('Job', namespace, neutralizeJob), slow)
  const container = job.spec.template.spec.containers[0]
  t.same(container.command, ['/entrypoint.sh', 'odoo', 'neutralize', '-d', erpDatabaseNames(uid).database], 'the ERP\'s own neutralization on the copy\'s database')
  t.same(container.envFrom, [{ secretRef: { name: `erp-${copySub}-db` } }], 'with the copy\'s database connection')
  t.match(container.image, /17\.0/, 'from the instance\'s own image')
  t.equal(kube.get('Deployment', namespace, `erp-${copySub}`)?.spec?.replicas, 0, 'the copy\'s ERP is not started while neutralization runs')
  kube.completeJob(namespace, neutralizeJob)

  t.equal((await waitForState(app, admin.token, copy.id, ['running'], 30_000)).state, 'running')
  t.equal(kube.get('Deployment', namespace, `erp-${copySub}`)?.spec?.replicas, 1, 'started once neutralized')
  const env = kube.get('Deployment', namespace, `erp-${copySub}`)?.spec?.template?.spec?.containers?.[0]?.env
  t.same(env, [{ name: 'ERP_WORKERS', value: '1' }], 'one worker')
  t.equal(kube.get('Job', namespace, neutralizeJob), undefined, 'the neutralization Job is cleaned up')
  const [row] = await app.sql<{ neutralized: boolean }>({ text: 'SELECT neutralized_at IS NOT NULL AS neutralized FROM instances WHERE id = $1', values: [copy.id] })
  t.equal(row?.neutralized, true, 'recorded neutralized')
  const restart = await app.inject({ method: 'POST', url: `/api/instances/${copy.id}/restart`, headers: bearer(admin.token) })
  t.equal(restart.statusCode, 202, 'a neutralized copy is started and restarted like any instance')
  await waitForState(app, admin.token, copy.id, ['running'], 30_000)

  const parent = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(parent, { kind: 'production', parent_id: null, expires_at: null, staging_ids: [copy.id] }, 'the parent lists its staging copy')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${copy.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail, { kind: 'staging', parent_id: id, expires_at: copy.expires_at, staging_ids: [] })
  const list = (await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })).json().instances
  t.match(list.find((i: { id: number }) => i.id === copy.id), { kind: 'staging', parent_id: id, expires_at: copy.expires_at })
  t.match(list.find((i: { id: number }) => i.id === id), { kind: 'production', parent_id: null, expires_at: null })
  const types = await activityTypes(context, copy.id)
  for (const type of ['instance.created', 'instance.staging_created', 'backup.restored', 'instance.running']) t.ok(types.includes(type), `${type} in the feed`)
})

t.test('from a fresh backup: the backup is queued for the copy, the restore waits for it, then the copy is made and runs', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, namespace } = context
  const { copy, uid } = await requestCopy(t, context, { name: 'Try-outs', subdomain: `${context.subdomain}-try` })
  t.match(copy, { name: 'Try-outs', kind: 'staging', parent_id: id })
  const backups = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups`, headers: bearer(admin.token) })).json().backups
  t.equal(backups.length, 1, 'a fresh backup of the parent was taken for the copy')
  const backupId: number = backups[0].id
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-${backupId}`), slow)
  // While the backup runs, the copy's restore job looks and sends itself again for later: no restore Job yet.
  const sends = async () => (await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'instance-backups' AND data->>'action' = 'restore' AND data->>'instanceId' = $1", values: [String(copy.id)] }))[0]?.n ?? 0
  await waitFor(async () => await sends() >= 2, slow)
  t.equal(kube.get('Job', namespace, `erp-restore-${backupId}-${uid.slice(0, 8)}`), undefined, 'nothing is restored before the backup completed')
  t.equal((await waitForState(app, admin.token, copy.id, ['restoring'])).state, 'restoring')
  kube.setPodLogs(namespace, `erp-backup-${backupId}`, `${RESULT_MARK} 4096 ${'b'.repeat(64)}\n`)
  kube.completeJob(namespace, `erp-backup-${backupId}`)
  t.equal((await waitForBackup(app, admin.token, id, backupId, 20_000)).state, 'completed')
  await restoreCompletes(context, backupId, uid)
  const neutralizeJob = `erp-${copy.subdomain}-neutralize`
  await waitFor(async () => kube.get('Job', namespace, neutralizeJob), slow)
  kube.completeJob(namespace, neutralizeJob)
  t.equal((await waitForState(app, admin.token, copy.id, ['running'], 30_000)).state, 'running')
})

t.test('a fresh backup that fails fails the copy with the reason; nothing was started', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, namespace } = context
  const { copy } = await requestCopy(t, context, {})
  const backupId: number = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups`, headers: bearer(admin.token) })).json().backups[0].id
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-${backupId}`), slow)
  kube.setPodLogs(namespace, `erp-backup-${backupId}`, 'pg_dump: error: connection refused\n')
  kube.failJob(namespace, `erp-backup-${backupId}`)
  t.equal((await waitForState(app, admin.token, copy.id, ['error'], 30_000)).state, 'error')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${copy.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, new RegExp(`backup #${backupId} .* failed`))
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`), undefined, 'no ERP was ever made for it')
})

t.test('a failed neutralization leaves the copy in error with the ERP\'s message; its ERP never started', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, namespace } = context
  const backupId = await completedBackup(context, id)
  const { copy, uid } = await requestCopy(t, context, { from_backup_id: backupId })
  await restoreCompletes(context, backupId, uid)
  const neutralizeJob = `erp-${copy.subdomain}-neutralize`
  await waitFor(async () => kube.get('Job', namespace, neutralizeJob), slow)
  kube.setPodLogs(namespace, neutralizeJob, 'odoo.modules.loading: loading 1 modules...\npsycopg2.errors.UndefinedTable: relation "ir_cron" does not exist\n')
  kube.failJob(namespace, neutralizeJob)
  t.equal((await waitForState(app, admin.token, copy.id, ['error'], 30_000)).state, 'error')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${copy.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, /neutralization Job .* failed[\s\S]*relation "ir_cron" does not exist/)
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`)?.spec?.replicas, 0, 'never scaled up: no ERP ran on the un-neutralized data')
  const pods = (kube.list('Pod', namespace) as Array<{ metadata: { name: string } }>).filter((p) => p.metadata.name.startsWith(`erp-${copy.subdomain}-`) && !p.metadata.name.includes('neutralize'))
  t.same(pods, [], 'no ERP pod')
  t.ok((await activityTypes(context, copy.id)).includes('backup.restore_failed'))
  const start = await app.inject({ method: 'POST', url: `/api/instances/${copy.id}/start`, headers: bearer(admin.token) })
  t.equal(start.statusCode, 409)
  t.equal(start.json().error.code, 'STAGING_NOT_NEUTRALIZED', 'nor can it be started by hand: it is refreshed instead')
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`)?.spec?.replicas, 0)
})

t.test('refresh: a fresh backup of the parent loaded over the copy in place, neutralized again, its expiry started over', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, namespace } = context
  const first = await completedBackup(context, id)
  const { copy, uid } = await requestCopy(t, context, { from_backup_id: first })
  await restoreCompletes(context, first, uid)
  await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-neutralize`), slow)
  kube.completeJob(namespace, `erp-${copy.subdomain}-neutralize`)
  await waitForState(app, admin.token, copy.id, ['running'], 30_000)
  await app.sql({ text: "UPDATE instances SET expires_at = now() + interval '1 day', expiry_warned_at = now() WHERE id = $1", values: [copy.id] })

  const production = await app.inject({ method: 'POST', url: `/api/instances/${id}/refresh`, headers: bearer(admin.token) })
  t.equal(production.statusCode, 409)
  t.equal(production.json().error.code, 'INSTANCE_NOT_STAGING', 'a production instance is not refreshed')

  const refresh = await app.inject({ method: 'POST', url: `/api/instances/${copy.id}/refresh`, headers: bearer(admin.token) })
  t.equal(refresh.statusCode, 202, refresh.body)
  t.match(refresh.json().instance, { id: copy.id, kind: 'staging', state: 'restoring' })
  t.ok(Date.parse(refresh.json().instance.expires_at) > Date.now() + 29 * 86_400_000, 'expiry starts over')
  const [row] = await app.sql<{ expiry_warned_at: Date | null }>({ text: 'SELECT expiry_warned_at FROM instances WHERE id = $1', values: [copy.id] })
  t.equal(row?.expiry_warned_at, null, 'warned again before the new expiry')
  const again = await app.inject({ method: 'POST', url: `/api/instances/${copy.id}/refresh`, headers: bearer(admin.token) })
  t.equal(again.json().error?.code, 'INSTANCE_BUSY', 'one refresh at a time')

  const backups = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups`, headers: bearer(admin.token) })).json().backups
  const fresh: number = backups[0].id
  t.not(fresh, first, 'a fresh backup of the parent')
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-${fresh}`), slow)
  kube.setPodLogs(namespace, `erp-backup-${fresh}`, `${RESULT_MARK} 4096 ${'b'.repeat(64)}\n`)
  kube.completeJob(namespace, `erp-backup-${fresh}`)
  const jobName = `erp-restore-${fresh}-${uid.slice(0, 8)}`
  const job = await waitFor(async () => kube.get('Job', namespace, jobName), slow)
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`)?.spec?.replicas, 0, 'the copy is stopped for the load')
  const sourceUid = await instanceUid(app, id)
  t.match(job.spec.template.spec.containers[0].env, [{ name: 'ARCHIVE' }, { name: 'EXPECTED_SHA256' }, { name: 'RESTORE_DATABASE', value: `${erpDatabaseNames(uid).database}_restore` },
    { name: 'FILESTORE_FROM', value: erpDatabaseNames(sourceUid).database }, { name: 'FILESTORE_TO', value: erpDatabaseNames(uid).database }, { name: 'NEW_DATABASE_IDENTITY', value: '1' }],
  'loaded in place, as a copy of the parent: its filestore folder renamed, its own identity')
  await restoreCompletes(context, fresh, uid)
  await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-neutralize`), slow)
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`)?.spec?.replicas, 0, 'not started before it is neutralized again')
  kube.completeJob(namespace, `erp-${copy.subdomain}-neutralize`)
  t.equal((await waitForState(app, admin.token, copy.id, ['running'], 30_000)).state, 'running')
  t.ok((await activityTypes(context, copy.id)).includes('instance.staging_refreshed'))
})
