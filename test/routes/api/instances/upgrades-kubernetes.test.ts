/**
 * Version upgrades through the whole app on the fake Kubernetes API server and the real PostgreSQL
 * (docs/upgrades.md): an apply that succeeds (the rollback point taken first, the instance stopped,
 * the configured command run as a Job from the target's image on its database, the instance started
 * on the target's image and recorded on the new version), an apply whose command fails (the rollback
 * point restored in place, the instance running its old version again, `rolled_back` with the
 * reason), and a test on a staging copy with its report. The Jobs are ended by the test, as the
 * cluster would end them; the fake cluster's ERP double records the version an upgrade Job brought
 * a database to, and forgets it when a restore loads a dump.
 */
import t from 'tap'
import { bearer } from '../../../support/accounts.ts'
import { waitForState } from '../../../support/instances.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { UPGRADE_QUEUE, type UpgradeJobData } from '../../../../plugins/app/upgrades/upgrade.queue.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { RESTORE_MARK } from '../../../../provisioning/kubernetes/restore-script.ts'
import { RESULT_MARK } from '../../../../provisioning/kubernetes/backup-job.ts'

const slow = { timeoutMs: 30_000, intervalMs: 50 }
const COMMANDS = JSON.stringify({ '18.0': { image: 'registry.example/erp-upgrade:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init'] } })
type Context = Awaited<ReturnType<typeof kubeApp>>

const upgradeApp = async (t: Parameters<typeof kubeApp>[0]) => kubeApp(t, { env: { ERP_UPGRADE_COMMANDS: COMMANDS } })

/** The backup Job of `backupId` reports an archive and completes. */
async function backupCompletes (context: Context, backupId: number): Promise<void> {
  const { kube, namespace } = context
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-${backupId}`), slow)
  kube.setPodLogs(namespace, `erp-backup-${backupId}`, `${RESULT_MARK} 4096 ${'b'.repeat(64)}\n`)
  kube.completeJob(namespace, `erp-backup-${backupId}`)
}

/** The restore Job of `backupId` into the instance of `uid` completes, then the Job that settles its filestore. */
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

async function upgradeSettles (context: Context, instanceId: number, upgradeId: number) {
  const { app, admin } = context
  return waitFor(async () => {
    const upgrade = (await app.inject({ method: 'GET', url: `/api/instances/${instanceId}/upgrades/${upgradeId}`, headers: bearer(admin.token) })).json().upgrade
    return ['succeeded', 'failed', 'rolled_back'].includes(upgrade.state) ? upgrade : undefined
  }, slow)
}

const activityTypes = async (context: Context, instanceId: number) =>
  (await context.app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [instanceId] })).map((row) => row.type)

const image = (context: Context, subdomain: string): string | undefined =>
  context.kube.get('Deployment', context.namespace, `erp-${subdomain}`)?.spec?.template?.spec?.containers?.[0]?.image

t.test('apply that succeeds: rollback point first, the command as a Job from the target image, started and recorded on the new version', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const uid = await instanceUid(app, id)
  const database = erpDatabaseNames(uid).database
  t.match(image(context, subdomain), /:17\.0$/)
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(response.statusCode, 202, response.body)
  const requested = response.json().upgrade
  t.match(requested, { instance_id: id, from_version: '17.0', target_version: '18.0', mode: 'apply', state: 'queued', step: 'backup', staging_instance_id: null })
  t.ok(requested.rollback_backup_id > 0, 'a rollback point is taken')
  t.equal((await waitForState(app, admin.token, id, ['upgrading'])).state, 'upgrading', 'the instance is held while it upgrades')
  const again = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(again.json().error?.code, 'INSTANCE_BUSY', 'one upgrade at a time')

  t.equal(kube.get('Job', namespace, `erp-${subdomain}-upgrade`), undefined, 'nothing runs before the rollback point exists')
  await backupCompletes(context, requested.rollback_backup_id)
  const job = await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-upgrade`), slow)
  const container = job.spec.template.spec.containers[0]
  t.same(container.command, ['/entrypoint.sh', 'odoo', '-d', database, '-u', 'all', '--stop-after-init'], 'the configured command on the instance\'s database')
  t.equal(container.image, 'registry.example/erp-upgrade:18.0', 'from the configured image of the target')
  t.same(container.envFrom, [{ secretRef: { name: `erp-${subdomain}-db` } }], 'with the instance\'s database connection')
  t.equal(kube.get('Deployment', namespace, `erp-${subdomain}`)?.spec?.replicas, 0, 'the instance is stopped while the command runs')
  kube.setPodLogs(namespace, `erp-${subdomain}-upgrade`, '2026-11-29 05:00:00,000 1 INFO db odoo.modules.loading: Loading module base (1/24)\n' +
    '2026-11-29 05:00:01,000 1 INFO db odoo.modules.loading: 24 modules loaded in 7.53s\nINFO done\n')
  kube.completeJob(namespace, `erp-${subdomain}-upgrade`)

  const done = await upgradeSettles(context, id, requested.id)
  t.match(done, { state: 'succeeded', step: 'done', failed_modules: [], error: null })
  t.match(done.log_tail, /Loading module base[\s\S]*INFO done/)
  t.ok(done.duration_ms >= 0 && done.started_at !== null && done.finished_at !== null)
  const instance = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(instance, { state: 'running', erp_version: '18.0' })
  t.equal(image(context, subdomain), 'odoo:18.0', 'running on the target version\'s image')
  t.equal(kube.get('Deployment', namespace, `erp-${subdomain}`)?.spec?.replicas, 1)
  t.equal(kube.erp.version(database), '18.0', 'the ERP double\'s database was upgraded')
  t.equal(kube.get('Job', namespace, `erp-${subdomain}-upgrade`), undefined, 'the upgrade Job is cleaned up')
  const types = await activityTypes(context, id)
  for (const type of ['instance.upgrade_requested', 'backup.requested', 'instance.upgrading', 'instance.upgraded', 'instance.running']) t.ok(types.includes(type), `${type} in the feed`)
  const list = (await app.inject({ method: 'GET', url: `/api/instances/${id}/upgrades`, headers: bearer(admin.token) })).json()
  t.same(list.upgrades.map((u: { id: number }) => u.id), [requested.id])
  t.match(list.pagination, { page: 1, total: 1 })

  // Restoring the rollback point later brings its version back with its data: never 18.0's server on 17.0's database.
  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${requested.rollback_backup_id}/restore`, headers: bearer(admin.token), payload: { mode: 'replace', confirm: subdomain } })
  t.equal(restore.statusCode, 202, restore.body)
  await restoreCompletes(context, requested.rollback_backup_id, uid)
  t.equal((await waitForState(app, admin.token, id, ['running'], 30_000)).state, 'running')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance.erp_version, '17.0', 'the backup\'s version')
  t.equal(image(context, subdomain), 'odoo:17.0', 'and its image')
})

t.test('apply whose command fails: the rollback point is restored in place and the instance runs its old version again', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const uid = await instanceUid(app, id)
  const database = erpDatabaseNames(uid).database
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(response.statusCode, 202, response.body)
  const requested = response.json().upgrade
  await backupCompletes(context, requested.rollback_backup_id)
  await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-upgrade`), slow)
  kube.setPodLogs(namespace, `erp-${subdomain}-upgrade`, '2026-11-29 05:00:01,000 1 INFO db odoo.modules.loading: Loading module stock_extra (2/24)\n' +
    '2026-11-29 05:00:01,000 1 ERROR db odoo.modules.registry: Failed to load registry\nTraceback: KeyError\n')
  kube.failJob(namespace, `erp-${subdomain}-upgrade`)

  t.equal((await waitForState(app, admin.token, id, ['restoring'], 30_000)).state, 'restoring', 'handed to the restore of the rollback point')
  await restoreCompletes(context, requested.rollback_backup_id, uid)
  const done = await upgradeSettles(context, id, requested.id)
  t.match(done, { state: 'rolled_back', step: 'done', failed_modules: ['stock_extra'] })
  t.match(done.error, /upgrade Job .* failed[\s\S]*Failed to load registry/, 'the reason')
  t.match(done.log_tail, /Traceback: KeyError/)
  const instance = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(instance, { state: 'running', erp_version: '17.0' }, 'running, on its old version')
  t.equal(image(context, subdomain), 'odoo:17.0', 'on the old version\'s image')
  t.equal(kube.get('Deployment', namespace, `erp-${subdomain}`)?.spec?.replicas, 1)
  t.equal(kube.erp.version(database), undefined, 'the database is the rollback point\'s dump again, not the upgraded one')
  const types = await activityTypes(context, id)
  for (const type of ['instance.upgrade_failed', 'instance.restoring', 'backup.restored', 'instance.upgrade_rolled_back']) t.ok(types.includes(type), `${type} in the feed`)
  t.notOk(types.includes('instance.upgraded'))
})

t.test('test mode: a staging copy made and upgraded, the production instance untouched, the report with incompatible addons', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const [source] = await app.sql<{ id: string }>({
    text: `INSERT INTO addon_sources (tenant_id, name, repository_url, branch, state, created_at, updated_at) VALUES ($1, 'Custom', 'https://git.example.com/custom.git', '17.0', 'synced', now(), now()) RETURNING id`,
    values: [admin.user.tenant_id]
  })
  for (const [name, series] of [['sale_custom', '17.0'], ['stock_ready', '18.0'], ['any_version', null]] as const) {
    await app.sql({
      text: `INSERT INTO erp_modules (technical_name, name, description, category, sequence, tenant_id, addon_source_id, erp_series) VALUES ($1, $1, '', 'Custom addons', 10, $2, $3, $4)`,
      values: [name, admin.user.tenant_id, source?.id, series]
    })
  }
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'test' } })
  t.equal(response.statusCode, 202, response.body)
  const requested = response.json().upgrade
  t.match(requested, { mode: 'test', state: 'queued', step: 'staging', rollback_backup_id: null, incompatible_addons: [{ module: 'sale_custom', erp_series: '17.0', addon_source_id: Number(source?.id) }] })
  const copyId: number = requested.staging_instance_id
  const copy = (await app.inject({ method: 'GET', url: `/api/instances/${copyId}`, headers: bearer(admin.token) })).json().instance
  t.match(copy, { kind: 'staging', parent_id: id })
  const copyUid = await instanceUid(app, copyId)
  const backupId: number = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups`, headers: bearer(admin.token) })).json().backups[0].id
  await backupCompletes(context, backupId)
  await restoreCompletes(context, backupId, copyUid)
  await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-neutralize`), slow)
  kube.completeJob(namespace, `erp-${copy.subdomain}-neutralize`)
  const job = await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-upgrade`), slow)
  t.same(job.spec.template.spec.containers[0].command, ['/entrypoint.sh', 'odoo', '-d', erpDatabaseNames(copyUid).database, '-u', 'all', '--stop-after-init'], 'on the copy\'s database')
  kube.setPodLogs(namespace, `erp-${copy.subdomain}-upgrade`, 'INFO all modules updated\n')
  kube.completeJob(namespace, `erp-${copy.subdomain}-upgrade`)
  const done = await upgradeSettles(context, id, requested.id)
  t.match(done, { state: 'succeeded', failed_modules: [], log_tail: 'INFO all modules updated' })
  t.match((await app.inject({ method: 'GET', url: `/api/instances/${copyId}`, headers: bearer(admin.token) })).json().instance, { state: 'running', erp_version: '18.0' })
  t.equal(image(context, copy.subdomain), 'odoo:18.0')
  t.match((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance, { state: 'running', erp_version: '17.0' }, 'production untouched')
  t.equal(image(context, subdomain), 'odoo:17.0')
  t.equal(kube.erp.version(erpDatabaseNames(await instanceUid(app, id)).database), undefined)
})

t.test('apply whose upgraded ERP does not answer: rolled back too, back on the old image', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const uid = await instanceUid(app, id)
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(response.statusCode, 202, response.body)
  const requested = response.json().upgrade
  await backupCompletes(context, requested.rollback_backup_id)
  await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-upgrade`), slow)
  // The command succeeds, but the ERP started on the new image answers nothing: the start's checks fail.
  kube.erp.setAnswering(namespace, `erp-${subdomain}`, false)
  kube.completeJob(namespace, `erp-${subdomain}-upgrade`)
  t.equal((await waitForState(app, admin.token, id, ['restoring'], 30_000)).state, 'restoring', 'handed to the restore of the rollback point')
  kube.erp.setAnswering(namespace, `erp-${subdomain}`, true)
  await restoreCompletes(context, requested.rollback_backup_id, uid)
  const done = await upgradeSettles(context, id, requested.id)
  t.match(done, { state: 'rolled_back' })
  t.match(done.error, /not reachable|503/, 'the start\'s reason')
  t.match((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance, { state: 'running', erp_version: '17.0' })
  t.equal(image(context, subdomain), 'odoo:17.0', 'the Deployment is back on the old image')
})

t.test('a job that finds the upgrade step already begun (its process died mid-command) does not run the command again: it rolls back', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const uid = await instanceUid(app, id)
  const backupId = await completedBackup(context, id)
  // What a crashed attempt leaves: the instance held, the upgrade begun, no live job.
  await app.sql({ text: "UPDATE instances SET state = 'upgrading' WHERE id = $1", values: [id] })
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO instance_upgrades (tenant_id, instance_id, from_version, target_version, mode, state, step, rollback_backup_id, started_at, created_at, updated_at)
      VALUES ($1, $2, '17.0', '18.0', 'apply', 'running', 'upgrade', $3, now(), now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, id, backupId]
  })
  const upgradeId = Number(row?.id)
  const data: UpgradeJobData = { upgradeId, tenantId: admin.user.tenant_id, instanceId: id }
  await app.orm.em.fork().transactional(async (tx) => { await app.jobs.send(tx, UPGRADE_QUEUE, data) })
  app.jobs.wake(UPGRADE_QUEUE)

  t.equal((await waitForState(app, admin.token, id, ['restoring'], 30_000)).state, 'restoring', 'straight to the rollback')
  t.equal(kube.get('Job', namespace, `erp-${subdomain}-upgrade`), undefined, 'the command is not run a second time')
  await restoreCompletes(context, backupId, uid)
  const done = await upgradeSettles(context, id, upgradeId)
  t.match(done, { state: 'rolled_back', error: /interrupted/ })
  t.match((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance, { state: 'running', erp_version: '17.0' })
})

t.test('a failed test (the command exited 0 but left a module half-updated): the upgrade failed with its report, the copy left stopped in error for inspection, production untouched', async (t) => {
  const context = await upgradeApp(t)
  const { kube, app, admin, id, subdomain, namespace } = context
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'test' } })
  t.equal(response.statusCode, 202, response.body)
  const requested = response.json().upgrade
  const copyId: number = requested.staging_instance_id
  const copy = (await app.inject({ method: 'GET', url: `/api/instances/${copyId}`, headers: bearer(admin.token) })).json().instance
  const backupId: number = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups`, headers: bearer(admin.token) })).json().backups[0].id
  await backupCompletes(context, backupId)
  await restoreCompletes(context, backupId, await instanceUid(app, copyId))
  await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-neutralize`), slow)
  kube.completeJob(namespace, `erp-${copy.subdomain}-neutralize`)
  await waitFor(async () => kube.get('Job', namespace, `erp-${copy.subdomain}-upgrade`), slow)
  // Odoo skips an installed module it cannot find, leaves it half-updated, and still exits 0.
  kube.setPodLogs(namespace, `erp-${copy.subdomain}-upgrade`, '2026-11-29 05:00:01,000 1 WARNING db odoo.modules.graph: module sale_custom: not installable, skipped\n' +
    "2026-11-29 05:00:01,000 1 ERROR db odoo.modules.loading: Some modules have inconsistent states, some dependencies may be missing: ['sale_custom']\n")
  kube.completeJob(namespace, `erp-${copy.subdomain}-upgrade`)
  const done = await upgradeSettles(context, id, requested.id)
  t.match(done, { state: 'failed', failed_modules: ['sale_custom'], error: /left modules the ERP could not load: sale_custom/ }, 'exit 0, yet a failure')
  const after = (await app.inject({ method: 'GET', url: `/api/instances/${copyId}`, headers: bearer(admin.token) })).json().instance
  t.match(after, { state: 'error', erp_version: '17.0', status_message: /Test upgrade to 18\.0 failed/ }, 'the copy stays, in error, for inspection')
  t.equal(kube.get('Deployment', namespace, `erp-${copy.subdomain}`)?.spec?.replicas, 0, 'stopped')
  t.match((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance, { state: 'running', erp_version: '17.0' }, 'production untouched')
  t.equal(image(context, subdomain), 'odoo:17.0')
})
