/**
 * A restore in place whose filestore cannot be unpacked changes nothing: the archive passes its
 * checksums (it is rewritten with a filestore that holds an entry below a file, and its new
 * SHA-256 recorded), the job fails at the unpack, and the instance keeps its rows and its files.
 * A restore whose database cannot be promoted after the files were swapped in puts them back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import t from 'tap'
import { pack } from 'tar-stream'
import { describeParts, PARTS, readArchive, writeArchive } from '../../../../plugins/app/backups/backup-archive.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { tagTestImages, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, inFilestore, LIST_FILES, onInstanceDatabase, seededInstance, waitForBackup } from '../../../support/backups.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

/** A filestore tar whose third entry cannot be written: `data/file` is a file, and `data/file/below` would go under it. */
async function unwritableFilestore (): Promise<Buffer> {
  const tar = pack()
  tar.entry({ name: 'data/', type: 'directory', mode: 0o755 })
  tar.entry({ name: 'data/written', mode: 0o644 }, 'unpacked before the failure')
  tar.entry({ name: 'data/file', mode: 0o644 }, 'a file')
  tar.entry({ name: 'data/file/below', mode: 0o644 }, 'cannot be written')
  tar.finalize()
  return buffer(tar)
}

docker.test('a restore whose filestore unpack fails leaves the instance\'s rows and files as they were', async (t) => {
  const { app, databaseUrl, backupDir } = await buildBackupApp(t, 'backups-restore-failure', { BACKUP_JOB_RETRIES: 0 })
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, {
    prefix: 'rf', names: ['Ada', 'Grace'], files: 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo v1 > /data/config'
  })
  const backup = await waitForBackup(app, admin.token, id, (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id)
  t.equal(backup.state, 'completed', backup.error ?? '')

  // After the backup: a changed row, a new table, a changed and a new file. A failed restore must keep all of them.
  await onInstanceDatabase(databaseUrl, uid, async (db) => {
    await db.query("UPDATE partners SET name = 'Changed' WHERE id = 1")
    await db.query('CREATE TABLE later (x int)')
  })
  await inFilestore(subdomain, 'echo v2 > /data/config && echo new > /data/filestore/new && echo h > /data/.hidden')
  const rows = () => onInstanceDatabase(databaseUrl, uid, async (db) => ({
    partners: (await db.query('SELECT id, name FROM partners ORDER BY id')).rows,
    tables: (await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((row: { tablename: string }) => row.tablename)
  }))
  const rowsBefore = await rows()
  const filesBefore = await inFilestore(subdomain, `${LIST_FILES}; find /data -name '.restore-*'`)

  // The stored archive, rewritten with the unwritable filestore and recorded with its new size and SHA-256.
  const work = mkdtempSync(join(tmpdir(), 'restore-failure-'))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const archive = join(backupDir, admin.user.tenant_id, String(id), `backup-${backup.id}.tar`)
  const manifest = await readArchive(archive, work)
  writeFileSync(join(work, PARTS.filestore), await unwritableFilestore())
  const rewritten = await writeArchive(archive, { ...manifest, parts: await describeParts(work) }, work)
  await app.sql({ text: 'UPDATE backups SET archive_sha256 = $2, size_bytes = $3 WHERE id = $1', values: [backup.id, rewritten.sha256, rewritten.bytes] })

  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${backup.id}/restore`, headers: bearer(admin.token), payload: { mode: 'replace', confirm: subdomain } })
  t.equal(restore.statusCode, 202, restore.body)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'], 120_000)).state, 'error', 'the restore failed')
  const [failed] = await app.sql<{ title: string }>({ text: "SELECT title FROM activities WHERE instance_id = $1 AND type = 'backup.restore_failed'", values: [id] })
  t.match(failed?.title, /failed: .*put archive/, `the unpack is what failed: ${failed?.title}`)

  t.same(await rows(), rowsBefore, 'the rows and tables made after the backup are all there: the restored database never took the instance\'s one\'s place')
  t.equal(await inFilestore(subdomain, `${LIST_FILES}; find /data -name '.restore-*'`), filesBefore, 'every file as it was, and no staging folder')
  const staged = await onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${erpDatabaseNames(uid).database}_restore`])).rowCount)
  t.equal(staged, 0, 'and no staged copy of the database left behind')
})

docker.test('a restore whose database cannot take the instance\'s one\'s place puts the replaced files back', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'backups-restore-promote', { BACKUP_JOB_RETRIES: 0 })
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, {
    prefix: 'rp', names: ['Ada'], files: 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo v1 > /data/config'
  })
  const backup = await waitForBackup(app, admin.token, id, (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id)
  t.equal(backup.state, 'completed', backup.error ?? '')
  await onInstanceDatabase(databaseUrl, uid, async (db) => { await db.query("UPDATE partners SET name = 'Changed' WHERE id = 1") })
  await inFilestore(subdomain, 'echo v2 > /data/config && echo new > /data/filestore/new && rm /data/filestore/ab/cafe')
  const filesBefore = await inFilestore(subdomain, `${LIST_FILES}; find /data -name '.restore-*'`)

  // The database server refuses the swap (a rename refused, the server gone): after the files were swapped in.
  const databases = app.instances.databases
  const promote = databases.promote
  databases.promote = async () => { throw new Error('the database server refused the rename') }
  t.teardown(() => { databases.promote = promote })

  const restore = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${backup.id}/restore`, headers: bearer(admin.token), payload: { mode: 'replace', confirm: subdomain } })
  t.equal(restore.statusCode, 202, restore.body)
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'], 120_000)).state, 'error', 'the restore failed')
  const [failed] = await app.sql<{ title: string }>({ text: "SELECT title FROM activities WHERE instance_id = $1 AND type = 'backup.restore_failed'", values: [id] })
  t.match(failed?.title, /refused the rename/)
  t.same(await onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query('SELECT name FROM partners ORDER BY id')).rows), [{ name: 'Changed' }], 'the instance\'s own database stayed')
  t.equal(await inFilestore(subdomain, `${LIST_FILES}; find /data -name '.restore-*'`), filesBefore, 'and the files that go with it: put back, nothing left aside')
})
