/**
 * Restores of Kubernetes archives through the whole app, on the fake API server and the real
 * PostgreSQL: the instance scaled to 0, the restore Job, and the instance and its database
 * following the Job's end, and the Job that settles the filestore after it (the replaced files
 * dropped, or put back when the database could not be promoted). The Jobs' scripts themselves are
 * run for real in test/provisioning/kubernetes/restore-script-docker.test.ts.
 */
import t, { type Test } from 'tap'
import { bearer } from '../../../support/accounts.ts'
import { uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { onInstanceDatabase } from '../../../support/backups.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { ARCHIVE_SHA, completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { DATA_PATH, RESTORE_MARK, RESTORE_SCRIPT } from '../../../../provisioning/kubernetes/restore-script.ts'
import { dropReplaced, putReplacedBack } from '../../../../provisioning/filestore-swap.ts'

const slow = { timeoutMs: 20_000, intervalMs: 50 }

/** The short Job that settles the filestore after the restore Job: checked, then completed. */
async function settles (t: Test, kube: Awaited<ReturnType<typeof kubeApp>>['kube'], namespace: string, subdomain: string, uid: string, keep: 'restored' | 'replaced'): Promise<void> {
  const name = `erp-restore-keep-${keep}-${uid.slice(0, 8)}`
  const job = await waitFor(async () => kube.get('Job', namespace, name), slow)
  const pod = job.spec.template.spec
  t.same(pod.containers[0].command, ['sh', '-c', keep === 'restored' ? dropReplaced(DATA_PATH) : putReplacedBack(DATA_PATH)], `${keep === 'restored' ? 'the replaced files go' : 'the replaced files come back'}`)
  t.same(pod.volumes.map((v: any) => v.persistentVolumeClaim), [{ claimName: `erp-${subdomain}-data`, readOnly: false }], 'the data claim only')
  kube.completeJob(namespace, name)
}

/** A restore in place under way: the instance scaled to 0 and the restore Job created. */
async function restoring (t: Test) {
  const context = await kubeApp(t)
  const { kube, app, admin, id, subdomain, namespace, databaseUrl } = context
  const uid = await instanceUid(app, id)
  // What only the instance's current database holds: gone once the restored one takes its place.
  await onInstanceDatabase(databaseUrl, uid, (db) => db.query('CREATE TABLE made_after_backup (x int)'))
  const hasMarker = () => onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'made_after_backup'")).rowCount === 1)
  const backupId = await completedBackup(context, id)
  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${backupId}/restore`, headers: bearer(admin.token), payload: { mode: 'replace', confirm: subdomain } })
  t.equal(restore.statusCode, 202, restore.body)
  t.equal(restore.json().instance_state, 'restoring')
  const jobName = `erp-restore-${backupId}-${uid.slice(0, 8)}`
  const job = await waitFor(async () => kube.get('Job', namespace, jobName), slow)
  t.equal(kube.get('Deployment', namespace, `erp-${subdomain}`)?.spec?.replicas, 0, 'the instance is scaled to 0 before the Job runs')
  t.equal((await waitForState(app, admin.token, id, ['restoring'])).state, 'restoring')
  const activities = async () => (await app.sql<{ type: string, title: string }>({ text: "SELECT type, title FROM activities WHERE target_type = 'backup' AND target_id = $1 ORDER BY id", values: [String(backupId)] }))
  const instance = async () => (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  return { ...context, uid, backupId, jobName, job, hasMarker, activities, instance }
}

t.test('in place: the Job loads the archive into the staged database, which takes the instance\'s place; the instance runs again', async (t) => {
  const { kube, app, admin, id, subdomain, namespace, uid, job, jobName, hasMarker, activities, databaseUrl } = await restoring(t)
  const container = job.spec.template.spec.containers[0]
  t.equal(container.image, 'registry.example/erp-backup:15')
  t.same(container.command, ['sh', '-c', RESTORE_SCRIPT])
  t.same(container.envFrom, [{ secretRef: { name: `erp-${subdomain}-db` } }])
  t.match(container.env, [{ name: 'ARCHIVE', value: `/backups/${uid}/` }, { name: 'EXPECTED_SHA256', value: ARCHIVE_SHA }, { name: 'RESTORE_DATABASE', value: `${erpDatabaseNames(uid).database}_restore` }])
  t.same(container.env.map((e: any) => e.name).filter((name: string) => /^(FILESTORE_|NEW_DATABASE_)/.test(name)), [], 'in place: the filestore keeps its name, the database its identity')
  t.same(job.spec.template.spec.volumes.map((v: any) => v.persistentVolumeClaim), [{ claimName: `backups-${admin.subdomain}`, readOnly: true }, { claimName: `erp-${subdomain}-data`, readOnly: false }])
  t.ok(await onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${erpDatabaseNames(uid).database}_restore`])).rowCount === 1), 'the staged database the Job loads into exists')
  t.ok(await hasMarker(), 'the instance\'s own database is untouched while the Job runs')

  kube.setPodLogs(namespace, jobName, `archive verified; loading the database\n${RESTORE_MARK} ok\n`)
  kube.completeJob(namespace, jobName)
  await settles(t, kube, namespace, subdomain, uid, 'restored')
  await waitForState(app, admin.token, id, ['running'], 20_000)
  t.equal(kube.get('Deployment', namespace, `erp-${subdomain}`)?.spec?.replicas, 1, 'scaled back')
  t.notOk(await hasMarker(), 'the staged database took the instance\'s place')
  t.same((await activities()).map((a) => a.type), ['backup.requested', 'backup.completed', 'backup.restore_requested', 'backup.restored'])
  t.equal(kube.get('Job', namespace, jobName), undefined, 'the Job is cleaned up')
})

t.test('a corrupt archive changes nothing: the instance runs again on its own data, the reason recorded', async (t) => {
  const { kube, app, admin, id, namespace, jobName, hasMarker, activities, instance } = await restoring(t)
  kube.setPodLogs(namespace, jobName, `${RESTORE_MARK} corrupt database.dump has SHA-256 ${'e'.repeat(64)}, the manifest says ${'f'.repeat(64)}\n`)
  kube.failJob(namespace, jobName, { exitCode: 3 })
  await waitFor(async () => (await activities()).some((a) => a.type === 'backup.restore_failed'), slow)
  t.equal((await waitForState(app, admin.token, id, ['running'], 20_000)).state, 'running')
  t.ok(await hasMarker(), 'the instance\'s database is the one it had')
  t.match((await activities()).at(-1)?.title, /failed: The backup's archive is corrupt: database\.dump has SHA-256 e{64}, the manifest says f{64}; nothing was changed/)
  t.match((await instance()).status_message, /refused: The backup's archive is corrupt/)
})

t.test('a failed Job puts the instance in error with the Job\'s last log line; its database is the one it had', async (t) => {
  const { kube, app, admin, id, uid, databaseUrl, namespace, jobName, hasMarker, activities, instance } = await restoring(t)
  kube.setPodLogs(namespace, jobName, 'archive verified; loading the database\npg_restore: error: could not execute query: ERROR:  disk full\n')
  kube.failJob(namespace, jobName)
  t.equal((await waitForState(app, admin.token, id, ['error'], 20_000)).state, 'error')
  t.match((await instance()).status_message, /The restore Job failed: pg_restore: error: could not execute query: ERROR: {2}disk full/)
  t.ok(await hasMarker())
  t.same((await activities()).map((a) => a.type).slice(-1), ['backup.restore_failed'])
  const staged = await onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${erpDatabaseNames(uid).database}_restore`])).rowCount)
  t.equal(staged, 0, 'the half-loaded staged database is dropped')
})

t.test('a staged database that cannot take the instance\'s place: the replaced files are put back, the instance is in error on its own data', async (t) => {
  const { kube, app, admin, id, subdomain, namespace, uid, jobName, hasMarker, activities, instance } = await restoring(t)
  const databases = app.instances.databases
  const promote = databases.promote
  databases.promote = async () => { throw new Error('the database server refused the rename') }
  t.teardown(() => { databases.promote = promote })
  kube.setPodLogs(namespace, jobName, `${RESTORE_MARK} ok\n`)
  kube.completeJob(namespace, jobName)
  await settles(t, kube, namespace, subdomain, uid, 'replaced')
  t.equal((await waitForState(app, admin.token, id, ['error'], 20_000)).state, 'error')
  t.match((await instance()).status_message, /refused the rename/)
  t.ok(await hasMarker(), 'the instance\'s own database stayed')
  t.same((await activities()).map((a) => a.type).slice(-1), ['backup.restore_failed'])
  t.equal(kube.get('Job', namespace, `erp-restore-keep-replaced-${uid.slice(0, 8)}`), undefined, 'the settling Job is cleaned up')
})

t.test('as a new instance (of a deleted one): made with no ERP pod, the Job loads it as a copy, and only then is it recorded initialised and started', async (t) => {
  const context = await kubeApp(t)
  const { kube, app, admin, id, namespace } = context
  const sourceUid = await instanceUid(app, id)
  const backupId = await completedBackup(context, id)
  // Deleted first: the tenant quota without a subscription holds one instance.
  t.equal((await app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['deleted'], 20_000)
  const copy = uniqueSubdomain('kc')
  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${backupId}/restore`, headers: bearer(admin.token), payload: { mode: 'new', name: 'Copy', subdomain: copy } })
  t.equal(restore.statusCode, 202, restore.body)
  const copyId: number = restore.json().instance_id
  const uid = await instanceUid(app, copyId)
  const jobName = `erp-restore-${backupId}-${uid.slice(0, 8)}`
  const job = await waitFor(async () => kube.get('Job', namespace, jobName), slow)
  t.same(job.spec.template.spec.volumes.map((v: any) => v.persistentVolumeClaim.claimName), [`backups-${admin.subdomain}`, `erp-${copy}-data`])
  const container = job.spec.template.spec.containers[0]
  t.same(container.envFrom, [{ secretRef: { name: `erp-${copy}-db` } }])
  t.match(container.env, [{ name: 'ARCHIVE' }, { name: 'EXPECTED_SHA256' }, { name: 'RESTORE_DATABASE', value: `${erpDatabaseNames(uid).database}_restore` },
    { name: 'FILESTORE_FROM', value: erpDatabaseNames(sourceUid).database }, { name: 'FILESTORE_TO', value: erpDatabaseNames(uid).database }, { name: 'NEW_DATABASE_IDENTITY', value: '1' }],
  'a copy: the filestore folder takes the copy\'s database name, the database gets its own identity')
  t.equal(kube.get('Deployment', namespace, `erp-${copy}`)?.spec?.replicas, 0, 'made with 0 replicas')
  const erpPods = () => (kube.list('Pod', namespace) as any[]).filter((p) => p.metadata.name.startsWith(`erp-${copy}-`) && !p.metadata.name.startsWith(`erp-${copy}-init`))
  t.same(erpPods(), [], 'no ERP pod has run on the empty database')
  t.equal(kube.get('Job', namespace, `erp-${copy}-init`), undefined, 'no first-start initialisation: the database comes from the backup')
  const initialised = async () => (await app.sql<{ initialised: boolean }>({ text: 'SELECT initialised_at IS NOT NULL AS initialised FROM instance_erp_credentials WHERE instance_id = $1', values: [copyId] }))[0]?.initialised
  t.equal(await initialised(), false, 'not recorded initialised while its database is empty')
  t.equal(kube.erp.initialised(erpDatabaseNames(uid).database), false, 'its database is empty: an ERP pod on it would never turn ready')
  kube.setPodLogs(namespace, jobName, `${RESTORE_MARK} ok\n`)
  kube.completeJob(namespace, jobName)
  await settles(t, kube, namespace, copy, uid, 'restored')
  await waitFor(async () => kube.get('Deployment', namespace, `erp-${copy}`)?.spec?.replicas === 1, slow)
  t.equal(await initialised(), true, 'recorded initialised once the data is in, before its ERP starts')
  t.equal((await waitForState(app, admin.token, copyId, ['running'], 20_000)).state, 'running', 'its ERP turns ready on the restored data')
  const types = await app.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE instance_id = $1 AND target_type = 'backup' ORDER BY id", values: [copyId] })
  t.same(types.map((a) => a.type), ['backup.restore_requested', 'backup.restored'])
})
