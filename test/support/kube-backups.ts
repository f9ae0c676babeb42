/**
 * The whole app on the fake Kubernetes API server with one running instance, and backups of it
 * whose Jobs the test ends (the fake runs no container): for the backup and restore route tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { build } from './build.ts'
import { bearer, signup } from './accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from './instances.ts'
import type { ErpTiming } from './kube/erp-database.ts'
import { fakeKubeApiServer } from './kube/fake-api-server.ts'
import { waitFor } from './kube/client-helpers.ts'
import { waitForBackup } from './backups.ts'
import { RESULT_MARK } from '../../provisioning/kubernetes/backup-job.ts'

export const ARCHIVE_SHA = 'b'.repeat(64)
const slow = { timeoutMs: 20_000, intervalMs: 50 }

/**
 * `podRuntime`: reader pods run for real (busybox httpd on Docker); `claimFolders` may be filled
 * once the tenant's namespace is known (`<namespace>/<claim>` → host folder).
 */
export async function kubeApp (t: Test, options: { podRuntime?: { claimFolders: Record<string, string> }, env?: Record<string, unknown>, erpTiming?: ErpTiming } = {}) {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, ...(options.podRuntime === undefined ? {} : { podRuntime: options.podRuntime }), ...(options.erpTiming === undefined ? {} : { erpTiming: options.erpTiming }) })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const { app, databaseUrl } = await build(t, {
    env: { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', INSTANCES_DOMAIN: 'erp.test', RECONCILE_SECONDS: 3600, BACKUP_JOB_RETRIES: 0, BACKUP_IMAGE: 'registry.example/erp-backup:{pg_major}', BACKUP_DIR: dir, ...options.env }
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const namespace = `erp-${admin.subdomain}`
  /** Creates an instance and ends its first-start Job, as the cluster would; answers its id once running. */
  async function firstStart (subdomain: string, id: number): Promise<void> {
    await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-init`), slow)
    kube.completeJob(namespace, `erp-${subdomain}-init`)
    await waitForState(app, admin.token, id, ['running'])
  }
  const subdomain = uniqueSubdomain('kb')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'kubernetes' } })
  const { id } = created.json().instance
  await firstStart(subdomain, id)
  return { kube, app, admin, id, subdomain, namespace, databaseUrl, firstStart }
}

/** A completed backup of `id`: its Job reported an archive of `result` (default 4096 bytes with ARCHIVE_SHA). */
export async function completedBackup (context: { kube: Awaited<ReturnType<typeof kubeApp>>['kube'], app: FastifyInstance, namespace: string, admin: { token: string } }, id: number, result = { bytes: 4096, sha256: ARCHIVE_SHA }): Promise<number> {
  const { kube, app, namespace, admin } = context
  const backupId: number = (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id
  await waitFor(async () => kube.get('Job', namespace, `erp-backup-${backupId}`), slow)
  kube.setPodLogs(namespace, `erp-backup-${backupId}`, `${RESULT_MARK} ${result.bytes} ${result.sha256}\n`)
  kube.completeJob(namespace, `erp-backup-${backupId}`)
  const done = await waitForBackup(app, admin.token, id, backupId, 20_000)
  if (done.state !== 'completed') throw new Error(`backup ${backupId} ${done.state}: ${done.error ?? ''}`)
  return backupId
}
