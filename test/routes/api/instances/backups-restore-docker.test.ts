import { join } from 'node:path'
import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { tagTestImages, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, flipByte, inFilestore, LIST_FILES, onInstanceDatabase, seededInstance, waitForBackup } from '../../../support/backups.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('a restore in place brings back exactly the backup\'s rows and files; a corrupt archive is refused with nothing changed', async (t) => {
  const { app, databaseUrl, backupDir } = await buildBackupApp(t, 'backups-restore')
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, {
    prefix: 'rs', names: ['Ada', 'Grace'], files: 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo v1 > /data/config'
  })
  const rows = () => onInstanceDatabase(databaseUrl, uid, async (db) => (await db.query('SELECT id, name FROM partners ORDER BY id')).rows)
  const tables = () => onInstanceDatabase(databaseUrl, uid, async (db) =>
    (await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((row: { tablename: string }) => row.tablename))
  const backedUpRows = await rows()
  const backedUpTables = await tables()
  const backedUpFiles = await inFilestore(subdomain, LIST_FILES)

  const post = await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })
  const backup = await waitForBackup(app, admin.token, id, post.json().backup.id)
  t.equal(backup.state, 'completed', backup.error ?? '')

  // Both change after the backup.
  await onInstanceDatabase(databaseUrl, uid, async (db) => {
    await db.query("UPDATE partners SET name = 'Changed' WHERE id = 1")
    await db.query("INSERT INTO partners VALUES (3, 'Edsger')")
    await db.query('CREATE TABLE later (x int)')
  })
  await inFilestore(subdomain, 'echo v2 > /data/config && rm /data/filestore/ab/cafe && echo new > /data/filestore/new')
  const changedFiles = await inFilestore(subdomain, LIST_FILES)
  t.not(changedFiles, backedUpFiles)

  const url = `/api/instances/${id}/backups/${backup.id}/restore`
  const ask = (token: string, payload: unknown) => app.inject({ method: 'POST', url, headers: bearer(token), payload: payload as Record<string, unknown> })
  const wrong = await ask(admin.token, { mode: 'replace', confirm: 'not-the-subdomain' })
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().error.code, 'BACKUP_CONFIRMATION_MISMATCH')
  t.equal((await ask(admin.token, { mode: 'replace' })).statusCode, 400, 'confirm missing')
  const member = await addMember(app, admin.user.tenant_id)
  t.equal((await ask(member.token, { mode: 'replace', confirm: subdomain })).statusCode, 403, 'admin only')
  const other = await signup(app)
  t.equal((await ask(other.token, { mode: 'replace', confirm: subdomain })).statusCode, 404, 'another company\'s backup')

  // One flipped byte in the stored archive: refused before anything changes.
  const archive = join(backupDir, admin.user.tenant_id, String(id), `backup-${backup.id}.tar`)
  const flip = () => flipByte(archive)
  flip()
  const corrupt = await ask(admin.token, { mode: 'replace', confirm: subdomain })
  t.equal(corrupt.statusCode, 422)
  t.equal(corrupt.json().error.code, 'BACKUP_CORRUPT')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })).json().state, 'running', 'the instance was not touched')
  t.same(await rows(), [{ id: 1, name: 'Changed' }, { id: 2, name: 'Grace' }, { id: 3, name: 'Edsger' }], 'nor its rows')
  t.equal(await inFilestore(subdomain, LIST_FILES), changedFiles, 'nor its files')
  flip()

  const restore = await ask(admin.token, { mode: 'replace', confirm: subdomain })
  t.equal(restore.statusCode, 202, restore.body)
  t.equal(restore.json().instance_state, 'restoring')
  const again = await ask(admin.token, { mode: 'replace', confirm: subdomain })
  t.equal(again.statusCode, 409, 'a second restore meanwhile')
  t.equal(again.json().error.code, 'INSTANCE_BUSY')
  const final = await waitForState(app, admin.token, id, ['running', 'error'], 120_000)
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.equal(final.state, 'running', detail.status_message ?? '')

  t.same(await rows(), backedUpRows, 'exactly the backup\'s rows')
  t.same(await tables(), backedUpTables, 'a table made after the backup is gone')
  t.ok(backedUpTables.includes('partners') && !backedUpTables.includes('later'))
  t.equal(await inFilestore(subdomain, LIST_FILES), backedUpFiles, 'exactly the backup\'s files')

  const feed = await app.sql<{ type: string, actor_kind: string }>({ text: "SELECT type, actor_kind FROM activities WHERE instance_id = $1 AND (type LIKE 'backup.restore%' OR type IN ('backup.restored', 'instance.restoring')) ORDER BY id", values: [id] })
  t.same(feed.map((row) => [row.type, row.actor_kind]), [['instance.restoring', 'user'], ['backup.restore_requested', 'user'], ['backup.restored', 'system']])
})
