import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { backupTestImage, inFilestore, onInstanceDatabase, waitForBackup } from '../../../support/backups.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

// Not the stand-in ERP's record of its administrator passwords (Odoo keeps them in the database).
const LIST_FILES = 'cd /data && find . -type f -not -path "./erp-test-image/*" | sort | while read -r f; do echo "$f $(cat "$f")"; done'

docker.test('a restore as a new instance makes a second instance holding the backup\'s rows and files, and leaves the first as it is', async (t) => {
  const backupDir = mkdtempSync(join(tmpdir(), 'backups-restore-new-'))
  t.teardown(() => rmSync(backupDir, { recursive: true, force: true }))
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { BACKUP_IMAGE: await backupTestImage(), BACKUP_DIR: backupDir }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('src')
  const { id } = (await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })).json().instance
  await waitForState(app, admin.token, id, ['running'])
  const uid = await instanceUid(app, id)
  const rowsOf = (instanceUidValue: string) => onInstanceDatabase(databaseUrl, instanceUidValue, async (db) => (await db.query('SELECT id, name FROM partners ORDER BY id')).rows)
  await onInstanceDatabase(databaseUrl, uid, async (db) => {
    await db.query('CREATE TABLE partners (id int PRIMARY KEY, name text NOT NULL)')
    await db.query("INSERT INTO partners VALUES (1, 'Ada'), (2, 'Grace')")
  })
  await inFilestore(subdomain, 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo v1 > /data/config')
  const backedUpRows = await rowsOf(uid)
  const backedUpFiles = await inFilestore(subdomain, LIST_FILES)
  const backup = await waitForBackup(app, admin.token, id, (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id)
  t.equal(backup.state, 'completed', backup.error ?? '')

  // The source changes after the backup; the copy must not see it.
  await onInstanceDatabase(databaseUrl, uid, async (db) => { await db.query("UPDATE partners SET name = 'Changed' WHERE id = 1") })
  await inFilestore(subdomain, 'echo v2 > /data/config')
  const sourceRows = await rowsOf(uid)
  const sourceFiles = await inFilestore(subdomain, LIST_FILES)

  const url = `/api/instances/${id}/backups/${backup.id}/restore`
  const ask = (token: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url, headers: bearer(token), payload })
  const taken = await ask(admin.token, { mode: 'new', name: 'Copy', subdomain })
  t.equal(taken.statusCode, 409, 'the subdomain is the source\'s')
  t.equal(taken.json().error.code, 'SUBDOMAIN_TAKEN')
  t.equal((await ask(admin.token, { mode: 'new', name: 'Copy' })).statusCode, 400, 'subdomain missing')
  t.equal((await ask(admin.token, { mode: 'new', name: 'Copy', subdomain: 'x', confirm: subdomain })).statusCode, 400, 'an unknown field')

  const copySubdomain = uniqueSubdomain('cpy')
  const restored = await ask(admin.token, { mode: 'new', name: 'Copy', subdomain: copySubdomain })
  t.equal(restored.statusCode, 202, restored.body)
  const copyId = restored.json().instance_id
  t.not(copyId, id)
  t.equal(restored.json().instance_state, 'restoring')
  const copy = (await app.inject({ method: 'GET', url: `/api/instances/${copyId}`, headers: bearer(admin.token) })).json().instance
  t.match(copy, { name: 'Copy', subdomain: copySubdomain, erp_version: '17.0', backend: 'docker', state: 'restoring' })
  await waitForState(app, admin.token, copyId, ['running'], 180_000)

  const copyUid = await instanceUid(app, copyId)
  t.same(await rowsOf(copyUid), backedUpRows, 'the new instance holds the backup\'s rows')
  t.same(await inFilestore(copySubdomain, LIST_FILES), backedUpFiles, 'and its files')
  t.same(await rowsOf(uid), sourceRows, 'the source keeps its own rows')
  t.same(await inFilestore(subdomain, LIST_FILES), sourceFiles, 'and its own files')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: bearer(admin.token) })).json().state, 'running')
  const activity = await app.sql<{ type: string, instance_id: number }>({ text: "SELECT type, instance_id FROM activities WHERE target_type = 'backup' AND target_id = $1 ORDER BY id", values: [String(backup.id)] })
  t.match(activity.map((a) => [a.type, a.instance_id]), [['backup.requested', id], ['backup.completed', id], ['backup.restore_requested', copyId], ['backup.restored', copyId]])

  // The plan's slots count: with two instances and a plan of two, a third copy is refused and nothing is made.
  await app.sql({
    text: `INSERT INTO subscriptions (id, tenant_id, plan_id, status, billing_cycle, users, storage, workers, instances, currency, amount, amount_due, activated_at, created_at, updated_at)
      SELECT gen_random_uuid(), $1, id, 'active', 'monthly', 5, 0, 2, 2, currency, 0, 0, now(), now(), now() FROM plans ORDER BY id LIMIT 1`,
    values: [admin.user.tenant_id]
  })
  const count = async () => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM instances WHERE tenant_id = $1', values: [admin.user.tenant_id] }))[0]?.n
  const before = await count()
  const full = await ask(admin.token, { mode: 'new', name: 'Third', subdomain: uniqueSubdomain('cpy') })
  t.equal(full.statusCode, 402)
  t.equal(full.json().error.code, 'PLAN_INSTANCE_LIMIT_REACHED')
  t.equal(await count(), before, 'no instance recorded')

  // A corrupt archive is refused before any instance is made.
  await app.sql({ text: 'UPDATE subscriptions SET instances = 5 WHERE tenant_id = $1', values: [admin.user.tenant_id] })
  const archive = join(backupDir, admin.user.tenant_id, String(id), `backup-${backup.id}.tar`)
  const fd = openSync(archive, 'r+')
  const byte = Buffer.alloc(1)
  readSync(fd, byte, 0, 1, 3000)
  byte[0] = (byte[0] ?? 0) ^ 0x01
  writeSync(fd, byte, 0, 1, 3000)
  closeSync(fd)
  const corrupt = await ask(admin.token, { mode: 'new', name: 'Bad', subdomain: uniqueSubdomain('cpy') })
  t.equal(corrupt.statusCode, 422)
  t.equal(corrupt.json().error.code, 'BACKUP_CORRUPT')
  t.equal(await count(), before, 'no instance recorded')
  const other = await signup(app)
  t.equal((await ask(other.token, { mode: 'new', name: 'Steal', subdomain: uniqueSubdomain('cpy') })).statusCode, 404, 'another company\'s backup')
})
