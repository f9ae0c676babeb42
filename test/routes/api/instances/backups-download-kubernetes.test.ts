/**
 * Downloads of archives kept on a Kubernetes tenant's backup claim, through the whole app: the
 * fake API server runs the reader pod for real (busybox httpd on the Docker engine, the claim a
 * host folder holding a real archive), and the portal reads it through the pod proxy.
 */
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { CoreV1Api } from '@kubernetes/client-node'
import { mergePatch, waitFor } from '../../../support/kube/client-helpers.ts'
import { completedBackup, kubeApp } from '../../../support/kube-backups.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { backupReaderTestImage } from '../../../support/backup-reader-image.ts'
import { describeParts, writeArchive } from '../../../../plugins/app/backups/backup-archive.ts'

/**
 * How long a download waits for its reader pod: long enough for a container to start on a loaded
 * machine (3 s was not, in a full run), short enough for the stuck pod's wait below.
 */
const READY_SECONDS = 10

/** The app with a completed backup whose real archive is on the (host-folder) backup claim. */
async function withArchive (t: Test) {
  const claimFolders: Record<string, string> = {}
  const image = await backupReaderTestImage()
  const context = await kubeApp(t, { podRuntime: { claimFolders }, env: { BACKUP_READER_IMAGE: image, BACKUP_READER_READY_SECONDS: READY_SECONDS } })
  const { kube, app, admin, id, namespace } = context
  const claim = mkdtempSync(join(tmpdir(), 'backup-claim-'))
  t.teardown(() => rmSync(claim, { recursive: true, force: true }))
  chmodSync(claim, 0o755)
  claimFolders[`${namespace}/backups-${admin.subdomain}`] = claim
  const uid = await instanceUid(app, id)
  const parts = mkdtempSync(join(tmpdir(), 'backup-parts-'))
  t.teardown(() => rmSync(parts, { recursive: true, force: true }))
  writeFileSync(join(parts, 'database.dump'), Buffer.alloc(700_000, 0).map((_, i) => (i * 13) % 256))
  writeFileSync(join(parts, 'filestore.tar'), Buffer.alloc(300_000, 7))
  mkdirSync(join(claim, uid), { mode: 0o755 })
  const staged = join(parts, 'archive.tar')
  const manifest = { format: 1, backup_id: 0, created_at: new Date().toISOString(), instance: { id, name: 'Production', subdomain: context.subdomain }, tenant: { id: admin.user.tenant_id, subdomain: admin.subdomain }, erp_version: '17.0', pg_major: 15, parts: await describeParts(parts) }
  const result = await writeArchive(staged, manifest, parts)
  const backupId = await completedBackup(context, id, result)
  const bytes = readFileSync(staged)
  writeFileSync(join(claim, uid, `backup-${backupId}.tar`), bytes, { mode: 0o644 })
  const url = `/api/instances/${id}/backups/${backupId}/download`
  const readers = () => kube.list('Pod', namespace).filter((p) => p.metadata?.labels?.['erp.portal/purpose'] === 'backup-reader')
  const readersGone = () => waitFor(async () => readers().length === 0, { timeoutMs: 20_000, intervalMs: 50 })
  return { ...context, claim, uid, backupId, bytes, result, url, readers, readersGone, image }
}

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex')

const docker = await requireDockerOrSkipLoudly(t)

docker.test('the archive streams from the backup claim through a reader pod: whole, ranges, resumed, by link; the pod goes after each', async (t) => {
  const { kube, app, admin, url, bytes, result, backupId, uid, readers, readersGone, image } = await withArchive(t)
  let seen: any
  const watching = waitFor(async () => { seen = readers()[0]; return seen }, { timeoutMs: 20_000, intervalMs: 20 })
  const whole = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
  t.equal(whole.statusCode, 200, whole.body.slice(0, 300))
  t.equal(whole.headers['content-length'], String(bytes.length))
  t.equal(whole.headers['accept-ranges'], 'bytes')
  t.match(whole.headers['content-disposition'], new RegExp(`^attachment; filename=".*-backup-${backupId}-\\d{8}-\\d{4}\\.tar"$`))
  t.equal(sha(whole.rawPayload), result.sha256, 'the SHA-256 the backup recorded')
  await watching
  const spec = seen.spec
  t.equal(spec.containers[0].image, image, 'BACKUP_READER_IMAGE')
  t.same(spec.containers[0].command, ['httpd', '-f', '-p', '8080', '-h', '/backups'])
  t.match(spec.containers[0].volumeMounts, [{ mountPath: '/backups', subPath: uid, readOnly: true }], 'only the instance\'s folder, read-only')
  t.same(spec.volumes.map((v: any) => v.persistentVolumeClaim), [{ claimName: `backups-${admin.subdomain}`, readOnly: true }])
  t.equal(spec.activeDeadlineSeconds, 6 * 3600, 'bounded like a backup Job')
  t.equal(spec.restartPolicy, 'Never')
  t.match(spec.securityContext, { runAsNonRoot: true, runAsUser: 65534 })
  t.match(spec.affinity, { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } }] } }, 'nothing else holds the claim: preferably near the instance')
  t.notOk(spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, 'and nothing required')
  t.match(seen.metadata.labels, { 'erp.portal/backup': String(backupId), 'erp.portal/purpose': 'backup-reader' })
  await readersGone()
  t.pass('the reader pod is deleted once the download ended')

  const part = await app.inject({ method: 'GET', url, headers: { ...bearer(admin.token), range: 'bytes=1000-1999' } })
  t.equal(part.statusCode, 206)
  t.equal(part.headers['content-range'], `bytes 1000-1999/${bytes.length}`)
  t.same(part.rawPayload, bytes.subarray(1000, 2000), 'the exact bytes')
  const tail = await app.inject({ method: 'GET', url, headers: { ...bearer(admin.token), range: 'bytes=-100' } })
  t.equal(tail.statusCode, 206)
  t.equal(tail.headers['content-range'], `bytes ${bytes.length - 100}-${bytes.length - 1}/${bytes.length}`)
  t.same(tail.rawPayload, bytes.subarray(bytes.length - 100), 'a suffix range (busybox httpd is asked for the explicit range)')
  const resumed = await app.inject({ method: 'GET', url, headers: { ...bearer(admin.token), range: 'bytes=500000-' } })
  t.equal(resumed.statusCode, 206)
  t.equal(sha(Buffer.concat([bytes.subarray(0, 500_000), resumed.rawPayload])), result.sha256, 'a resumed download completes the archive')
  const outside = await app.inject({ method: 'GET', url, headers: { ...bearer(admin.token), range: `bytes=${bytes.length}-` } })
  t.equal(outside.statusCode, 416, 'a range outside the archive is refused before any pod starts')

  const issued = await app.inject({ method: 'POST', url: `${url}-token`, headers: bearer(admin.token) })
  t.equal(issued.statusCode, 201, issued.body)
  const link = new URL(issued.json().download_url)
  const byLink = await app.inject({ method: 'GET', url: `${link.pathname}${link.search}` })
  t.equal(byLink.statusCode, 200)
  t.equal(sha(byLink.rawPayload), result.sha256, 'the browser link downloads it too')

  const stranger = await signup(app)
  const foreign = await app.inject({ method: 'GET', url, headers: bearer(stranger.token) })
  t.equal(foreign.statusCode, 404, 'another company\'s backup does not exist for it')
  await readersGone()
  t.same(kube.internalErrors, [])
  t.same(kube.podRuntimeErrors, [])
})

docker.test('a download the client drops deletes its reader pod', async (t) => {
  const { app, admin, url, readers, readersGone } = await withArchive(t)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const answer = await new Promise<IncomingMessage>((resolve, reject) => get(`${address}${url}`, { headers: bearer(admin.token) }, resolve).on('error', reject))
  t.equal(answer.statusCode, 200)
  await new Promise((resolve) => answer.once('data', resolve))
  t.equal(readers().length, 1, 'the reader serves the download')
  answer.destroy()
  await readersGone()
  t.pass('gone once the client went')
})

docker.test('what can go wrong answers an error, never a broken 200, and leaves no reader pod', async (t) => {
  const { kube, app, admin, url, claim, uid, backupId, namespace, readersGone } = await withArchive(t)
  rmSync(join(claim, uid, `backup-${backupId}.tar`))
  const missing = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
  t.equal(missing.statusCode, 404)
  t.match(missing.json().error, { code: 'BACKUP_NOT_FOUND', message: /missing from the tenant's backup claim/ })
  await readersGone()

  writeFileSync(join(claim, uid, `backup-${backupId}.tar`), 'shorter than recorded')
  const short = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
  t.equal(short.statusCode, 502, 'a file of another size than recorded')
  t.match(short.json().error, { code: 'BACKUP_ARCHIVE_UNREADABLE', message: /bytes where \d+ were expected/ })
  await readersGone()

  kube.holdPods(namespace)
  const stuck = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
  t.equal(stuck.statusCode, 503)
  t.match(stuck.json().error, { code: 'BACKUP_READER_UNAVAILABLE', message: new RegExp(`not ready within ${READY_SECONDS} s: phase Pending, ImagePullBackOff`) })
  await readersGone()
  kube.releasePods(namespace)

  // The quota tightened to what is used now: no room for a reader.
  const used = kube.get('ResourceQuota', namespace, 'erp-quota')?.status?.used ?? {}
  await kube.kubeConfig.makeApiClient(CoreV1Api).patchNamespacedResourceQuota({ name: 'erp-quota', namespace, body: { spec: { hard: { 'limits.memory': used['limits.memory'] } } } }, mergePatch)
  const busy = await app.inject({ method: 'GET', url, headers: bearer(admin.token) })
  t.equal(busy.statusCode, 429)
  t.match(busy.json().error, { code: 'BACKUP_DOWNLOADS_BUSY', message: /quota has no room for one more reader pod/ })
  await readersGone()
  t.same(kube.internalErrors, [])
})
