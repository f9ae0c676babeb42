import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { readArchive } from '../../../../plugins/app/backups/backup-archive.ts'
import { build } from '../../../support/build.ts'
import { captureLog } from '../../../support/log-capture.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { backupTestImage, inFilestore, onInstanceDatabase, waitForBackup } from '../../../support/backups.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

function folder (t: { teardown: (fn: () => unknown) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'backups-docker-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

docker.test('a backup dumps the database and the filestore into one archive that downloads whole or in ranges', async (t) => {
  const backupDir = folder(t)
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { BACKUP_IMAGE: await backupTestImage(), BACKUP_DIR: backupDir }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('bk')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const { id } = created.json().instance
  await waitForState(app, admin.token, id, ['running'])
  const uid = await instanceUid(app, id)
  await onInstanceDatabase(databaseUrl, uid, async (db) => {
    await db.query('CREATE TABLE partners (id int PRIMARY KEY, name text NOT NULL)')
    await db.query("INSERT INTO partners VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')")
  })
  await inFilestore(subdomain, 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo keep > /data/.hidden')

  const post = await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })
  t.equal(post.statusCode, 202, post.body)
  const queued = post.json().backup
  t.match(queued, { state: 'queued', kind: 'manual', size: null, sha256: null, erp_version: '17.0', instance_id: id })
  const done = await waitForBackup(app, admin.token, id, queued.id)
  t.match(done, { state: 'completed', step: null, error: null, pg_major: 15 })
  t.ok(done.size !== null && done.size > 0, `archive of ${done.size} bytes`)

  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.last_backup, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/, 'last_backup is set when the backup completes')

  // The download is the archive whose SHA-256 the record shows; its parts match their manifest.
  const download = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${queued.id}/download`, headers: bearer(admin.token) })
  t.equal(download.statusCode, 200)
  t.equal(download.headers['content-length'], String(done.size))
  t.match(download.headers['content-disposition'], new RegExp(`^attachment; filename="${subdomain}-backup-${queued.id}-\\d{8}-\\d{4}\\.tar"$`))
  t.equal(download.headers['accept-ranges'], 'bytes')
  t.equal(createHash('sha256').update(download.rawPayload).digest('hex'), done.sha256, 'the downloaded file has the recorded SHA-256')
  const work = folder(t)
  writeFileSync(join(work, 'archive.tar'), download.rawPayload)
  const manifest = await readArchive(join(work, 'archive.tar'), work)
  t.match(manifest, { backup_id: queued.id, instance: { id, subdomain }, tenant: { id: admin.user.tenant_id }, erp_version: '17.0', pg_major: 15 })
  t.same(manifest.parts.map((part) => part.name), ['database.dump', 'filestore.tar'])
  const toc = execFileSync('pg_restore', ['--list', join(work, 'database.dump')], { encoding: 'utf8' })
  t.match(toc, /TABLE DATA public partners/, 'a pg_restore-able custom dump holding the table\'s rows')
  const files = execFileSync('tar', ['-tf', join(work, 'filestore.tar')], { encoding: 'utf8' }).split('\n')
  t.ok(files.includes('data/filestore/ab/cafe') && files.includes('data/.hidden'), 'the filestore, hidden files included')

  const tail = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${queued.id}/download`, headers: { ...bearer(admin.token), range: 'bytes=1000-' } })
  t.equal(tail.statusCode, 206)
  t.equal(tail.headers['content-range'], `bytes 1000-${done.size! - 1}/${done.size}`)
  t.ok(Buffer.concat([download.rawPayload.subarray(0, 1000), tail.rawPayload]).equals(download.rawPayload), 'a resumed download completes the file')
  const outside = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${queued.id}/download`, headers: { ...bearer(admin.token), range: `bytes=${done.size}-` } })
  t.equal(outside.statusCode, 416)
  t.equal(outside.headers['content-range'], `bytes */${done.size}`)
  t.equal(outside.json().error.code, 'BACKUP_RANGE_NOT_SATISFIABLE')

  // One backup at a time per instance.
  await app.sql({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, created_at, updated_at) VALUES ($1, $2, 'running', 'scheduled', '17.0', now(), now())", values: [admin.user.tenant_id, id] })
  const busy = await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })
  t.equal(busy.statusCode, 409)
  t.equal(busy.json().error.code, 'BACKUP_IN_PROGRESS')
  const list = (await app.inject({ method: 'GET', url: `/api/instances/${id}/backups?per_page=1`, headers: bearer(admin.token) })).json()
  t.match(list, { total: 2, page: 1, per_page: 1 })
  t.match(list.backups, [{ state: 'running', kind: 'scheduled' }], 'newest first')
  const running = list.backups[0].id
  const notDone = await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${running}/download`, headers: bearer(admin.token) })
  t.equal(notDone.json().error.code, 'BACKUP_NOT_COMPLETED')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/instances/${id}/backups/${running}`, headers: bearer(admin.token) })).json().error.code, 'BACKUP_IN_PROGRESS')

  // Another company sees none of it; a member may not delete.
  const other = await signup(app)
  for (const [method, url] of [['GET', `/api/instances/${id}/backups`], ['GET', `/api/instances/${id}/backups/${queued.id}`], ['GET', `/api/instances/${id}/backups/${queued.id}/download`],
    ['POST', `/api/instances/${id}/backup`], ['DELETE', `/api/instances/${id}/backups/${queued.id}`]] as const) {
    const answer = await app.inject({ method, url, headers: bearer(other.token) })
    t.equal(answer.statusCode, 404, `${method} ${url} for another company`)
  }
  const member = await addMember(app, admin.user.tenant_id)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/instances/${id}/backups/${queued.id}`, headers: bearer(member.token) })).statusCode, 403)

  const archiveFile = join(backupDir, admin.user.tenant_id, String(id), `backup-${queued.id}.tar`)
  t.ok(existsSync(archiveFile), 'the archive is in BACKUP_DIR/<tenant>/<instance>/')
  t.ok(readFileSync(archiveFile).equals(download.rawPayload))
  const removal = await app.inject({ method: 'DELETE', url: `/api/instances/${id}/backups/${queued.id}`, headers: bearer(admin.token) })
  t.equal(removal.statusCode, 200, removal.body)
  t.notOk(existsSync(archiveFile), 'the archive goes with the record')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}/backups/${queued.id}`, headers: bearer(admin.token) })).statusCode, 404)

  const feed = await app.sql<{ type: string, actor_kind: string, actor_id: string | null }>({ text: "SELECT type, actor_kind, actor_id FROM activities WHERE type LIKE 'backup.%' ORDER BY id", values: [] })
  t.same(feed.map((row) => [row.type, row.actor_kind]), [['backup.requested', 'user'], ['backup.completed', 'system'], ['backup.deleted', 'user']])
  t.equal(feed[0]?.actor_id, admin.user.id)
})

docker.test('POST /backup answers 503 in the tenant\'s words, logs the missing backup image for the operator, and records nothing', async (t) => {
  const { lines, logger } = captureLog()
  const { app, databaseUrl } = await build(t, { logger, env: dockerInstanceEnv(t, { BACKUP_IMAGE: '127.0.0.1:1/no-such-backup-image:{pg_major}' }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'P', subdomain: uniqueSubdomain('nb'), erp_version: '17.0', backend: 'docker' } })
  const { id } = created.json().instance
  await waitForState(app, admin.token, id, ['running'])
  const answer = await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })
  t.equal(answer.statusCode, 503)
  t.same(answer.json().error, {
    code: 'BACKUP_UNAVAILABLE',
    message: 'Backups cannot run right now: the hosting platform is not ready for them. The operator has been told.',
    details: { backend: 'docker' }
  })
  t.notMatch(answer.body, /no-such-backup-image|127\.0\.0\.1|Docker (engine|host)|pg_dump|BACKUP_IMAGE/i, 'no image, address or host reaches the tenant')
  const logged = lines.find((line) => line.msg === 'request failed' && line.request_id === answer.json().request_id) as { err?: { operator?: unknown } } | undefined
  t.match(logged?.err?.operator, { reason: /127\.0\.0\.1:1\/no-such-backup-image:\d+/ }, 'the operator reads the image it lacks, with the request id')
  t.same(await app.sql({ text: 'SELECT id FROM backups', values: [] }), [], 'no backup recorded')
})
