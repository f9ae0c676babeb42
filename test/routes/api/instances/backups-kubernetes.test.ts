/** Backups of a Kubernetes instance through the whole app, on the fake API server: the Job, and the record following it. */
import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { build } from '../../../support/build.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { waitForBackup } from '../../../support/backups.ts'
import { ARCHIVE_SHA as SHA, kubeApp } from '../../../support/kube-backups.ts'
import { RESULT_MARK } from '../../../../provisioning/kubernetes/backup-job.ts'

t.test('a backup runs as a Job in the tenant namespace; its completion fills the record; the archive stays in the cluster, read from there', async (t) => {
  const { kube, app, admin, id, subdomain, namespace } = await kubeApp(t)
  const post = await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })
  t.equal(post.statusCode, 202, post.body)
  const backupId = post.json().backup.id
  const jobName = `erp-backup-${backupId}`
  const job = await waitFor(async () => kube.get('Job', namespace, jobName), { timeoutMs: 20_000, intervalMs: 50 })
  const container = job.spec.template.spec.containers[0]
  t.equal(container.image, 'registry.example/erp-backup:15', 'BACKUP_IMAGE with the server\'s major version')
  t.same(container.envFrom, [{ secretRef: { name: `erp-${subdomain}-db` } }])
  t.same(job.spec.template.spec.volumes.map((v: any) => v.persistentVolumeClaim.claimName), [`erp-${subdomain}-data`, `backups-${admin.subdomain}`])
  const head = JSON.parse(`${String(container.env.find((e: any) => e.name === 'MANIFEST_HEAD').value)},"parts":[]}`)
  t.match(head, { format: 1, backup_id: backupId, instance: { id, subdomain }, tenant: { id: admin.user.tenant_id, subdomain: admin.subdomain }, erp_version: '17.0', pg_major: 15 })
  const running = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${backupId}`, headers: bearer(admin.token) })).json().backup
  t.match(running, { state: 'running', step: 'running the backup job in the cluster' })

  kube.setPodLogs(namespace, jobName, `${RESULT_MARK} 4096 ${SHA}\n`)
  kube.completeJob(namespace, jobName)
  const done = await waitForBackup(app, admin.token, id, backupId, 20_000)
  t.match(done, { state: 'completed', size: 4096, sha256: SHA, error: null })
  t.equal(kube.get('Job', namespace, jobName), undefined, 'the Job is cleaned up')

  // The download reads the archive through a reader pod (backups-download-kubernetes.test.ts runs it for real);
  // here the fake runs no container: nothing answers behind the pod proxy, which is an error, not a 200.
  const download = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${backupId}/download`, headers: bearer(admin.token) })
  t.equal(download.statusCode, 502, download.body)
  t.match(download.json().error, { code: 'BACKUP_ARCHIVE_UNREADABLE', message: /answered 503/ })
  t.ok(kube.requests.some((r) => r.method === 'POST' && r.path === `/api/v1/namespaces/${namespace}/pods`), 'a reader pod was created')
  t.same(kube.list('Pod', namespace).filter((p) => p.metadata?.labels?.['erp.portal/purpose'] === 'backup-reader'), [], 'and deleted')

  const removing = app.inject({ method: 'DELETE', url: `/api/instances/${id}/backups/${backupId}`, headers: bearer(admin.token) })
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-rm-${backupId}`), { timeoutMs: 20_000, intervalMs: 50 })
  kube.completeJob(namespace, `erp-backup-rm-${backupId}`)
  t.equal((await removing).statusCode, 200, 'the archive is removed from the backup claim by a Job')
})

t.test('a failed Job fails the backup with the end of its log', async (t) => {
  const { kube, app, admin, id, namespace } = await kubeApp(t)
  const backupId = (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id
  const jobName = `erp-backup-${backupId}`
  await waitFor(async () => kube.get('Job', namespace, jobName), { timeoutMs: 20_000, intervalMs: 50 })
  kube.setPodLogs(namespace, jobName, 'pg_dump: error: connection to server at "db" failed\n')
  kube.failJob(namespace, jobName)
  const failed = await waitForBackup(app, admin.token, id, backupId, 20_000)
  t.equal(failed.state, 'failed')
  t.match(failed.error, /BackoffLimitExceeded.*pg_dump: error: connection to server at "db" failed/)
  const activity = await app.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE target_type = 'backup' AND target_id = $1 ORDER BY id", values: [String(backupId)] })
  t.same(activity.map((a) => a.type), ['backup.requested', 'backup.failed'])
})

t.test('an archive kept in a cluster whose backend is not configured here cannot be downloaded or restored: 409 BACKUP_IN_CLUSTER', async (t) => {
  const { app } = await build(t, { env: { INSTANCE_BACKENDS: 'docker', JOB_WORKERS: false } })
  const admin = await signup(app)
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'running', backend: 'kubernetes' })
  const [row] = await app.sql<{ id: number }>({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, archive_key, created_at, updated_at, completed_at) VALUES ($1, $2, 'completed', 'manual', '17.0', 4096, $3, now(), now(), now()) RETURNING id::int", values: [admin.user.tenant_id, id, `kubernetes:backups-${admin.subdomain}/x/backup-1.tar`] })
  const download = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${row!.id}/download`, headers: bearer(admin.token) })
  t.equal(download.statusCode, 409, download.body)
  t.match(download.json().error, { code: 'BACKUP_IN_CLUSTER', message: /backend that reads it is not configured here/ })
  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${row!.id}/restore`, headers: bearer(admin.token), payload: { mode: 'new', name: 'Copy', subdomain: `copy-${admin.subdomain}` } })
  t.equal(restore.statusCode, 409, restore.body)
  t.match(restore.json().error, { code: 'BACKUP_IN_CLUSTER', message: /restored by a Job there, and the backend that runs it is not configured here/ })
  const [counts] = await app.sql<{ instances: number, restoring: number }>({ text: "SELECT (SELECT count(*) FROM instances WHERE tenant_id = $1)::int AS instances, (SELECT count(*) FROM instances WHERE tenant_id = $1 AND state = 'restoring')::int AS restoring", values: [admin.user.tenant_id] })
  t.same(counts, { instances: 1, restoring: 0 }, 'nothing was created or changed')
})
