/**
 * Memory stays flat while a 1 GiB archive streams from a Kubernetes backup claim: through the
 * reader pod (busybox httpd run for real by the fake API server, the claim a host folder holding a
 * sparse 1 GiB file), the fake's pod proxy and the portal, to a client in this process that drops
 * what it receives. RSS covers the portal and the fake's proxy alike; a buffering implementation
 * of either would grow by the gigabyte. The bound is generous on purpose.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { bearer } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { waitFor } from '../../../support/kube/client-helpers.ts'
import { completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { backupReaderTestImage } from '../../../support/backup-reader-image.ts'
import { measuredDownload, mib, sparseFile } from '../../../support/download-memory.ts'

const GIB = 2 ** 30
const MAX_GROWTH = 400 * 2 ** 20

const docker = await requireDockerOrSkipLoudly(t)

docker.test('RSS grows by far less than the archive while 1 GiB streams from the cluster', async (t) => {
  const claimFolders: Record<string, string> = {}
  const context = await kubeApp(t, { podRuntime: { claimFolders }, env: { BACKUP_READER_IMAGE: await backupReaderTestImage() } })
  const { kube, app, admin, id, namespace } = context
  const claim = mkdtempSync(join(tmpdir(), 'backup-claim-'))
  t.teardown(() => rmSync(claim, { recursive: true, force: true }))
  chmodSync(claim, 0o755)
  claimFolders[`${namespace}/backups-${admin.subdomain}`] = claim
  const backupId = await completedBackup(context, id, { bytes: GIB, sha256: 'c'.repeat(64) })
  const uid = await instanceUid(app, id)
  mkdirSync(join(claim, uid), { mode: 0o755 })
  sparseFile(join(claim, uid, `backup-${backupId}.tar`), GIB)

  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const { received, before, peak, seconds } = await measuredDownload(`${address}/api/instances/${id}/backups/${backupId}/download`, bearer(admin.token))
  t.equal(received, GIB, 'the whole archive arrived')
  const growth = peak - before
  t.comment(`RSS before ${mib(before)} MiB, peak ${mib(peak)} MiB, growth ${mib(growth)} MiB for a 1024 MiB archive; ${seconds.toFixed(1)} s (${Math.round(1024 / seconds)} MiB/s, reader pod start included)`)
  t.ok(growth < MAX_GROWTH, `RSS grew by ${mib(growth)} MiB, under ${mib(MAX_GROWTH)} MiB`)
  await waitFor(async () => kube.list('Pod', namespace).every((p) => p.metadata?.labels?.['erp.portal/purpose'] !== 'backup-reader'), { timeoutMs: 20_000, intervalMs: 50 })
  t.same(kube.internalErrors, [])
})
