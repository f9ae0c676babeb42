import { join } from 'node:path'
import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { dockerClient, execIn, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, flipByte, inFilestore, LIST_FILES, onInstanceDatabase, seededInstance, waitForBackup } from '../../../support/backups.ts'
import { activeSubscription } from '../../../support/billing-fixtures.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('a restore as a new instance makes a second instance holding the backup\'s rows and files, and leaves the first as it is', async (t) => {
  const { app, databaseUrl, backupDir } = await buildBackupApp(t, 'backups-restore-new')
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, {
    prefix: 'src', names: ['Ada', 'Grace'], files: 'mkdir -p /data/filestore/ab && echo invoice-1 > /data/filestore/ab/cafe && echo v1 > /data/config'
  })
  const rowsOf = (instanceUidValue: string) => onInstanceDatabase(databaseUrl, instanceUidValue, async (db) => (await db.query('SELECT id, name FROM partners ORDER BY id')).rows)
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

  // The copy is an ERP of its own: its own master password in its server configuration, and its
  // database (the backup's, initialised) recorded as initialised, so no later start initialises it again.
  const [secrets] = await app.sql<{ initialised: boolean, password_set: boolean }>({
    text: 'SELECT initialised_at IS NOT NULL AS initialised, admin_password_set_at IS NOT NULL AS password_set FROM instance_erp_credentials WHERE instance_id = $1', values: [copyId]
  })
  t.same(secrets, { initialised: true, password_set: true })
  const masterPassword = (await app.instances.erpCredentials.read(app.orm.em.fork(), { id: copyId, uid: copyUid }))?.masterPassword
  t.ok(masterPassword)
  const config = await execIn(dockerClient().getContainer(`erp-${copySubdomain}`), ['cat', '/etc/odoo/odoo.conf'])
  t.match(config.stdout, `admin_passwd = ${masterPassword}\n`, 'the copy\'s own master password is in its server configuration')
  const activity = await app.sql<{ type: string, instance_id: number }>({ text: "SELECT type, instance_id FROM activities WHERE target_type = 'backup' AND target_id = $1 ORDER BY id", values: [String(backup.id)] })
  t.match(activity.map((a) => [a.type, a.instance_id]), [['backup.requested', id], ['backup.completed', id], ['backup.restore_requested', copyId], ['backup.restored', copyId]])

  // The plan's slots count: with two instances and a plan of two, a third copy is refused and nothing is made.
  await activeSubscription(app, admin.user.tenant_id, { instances: 2, workers: 2 })
  const count = async () => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM instances WHERE tenant_id = $1', values: [admin.user.tenant_id] }))[0]?.n
  const before = await count()
  const full = await ask(admin.token, { mode: 'new', name: 'Third', subdomain: uniqueSubdomain('cpy') })
  t.equal(full.statusCode, 402)
  t.equal(full.json().error.code, 'PLAN_INSTANCE_LIMIT_REACHED')
  t.equal(await count(), before, 'no instance recorded')

  // A corrupt archive is refused before any instance is made.
  await app.sql({ text: 'UPDATE subscriptions SET instances = 5 WHERE tenant_id = $1', values: [admin.user.tenant_id] })
  const archive = join(backupDir, admin.user.tenant_id, String(id), `backup-${backup.id}.tar`)
  flipByte(archive)
  const corrupt = await ask(admin.token, { mode: 'new', name: 'Bad', subdomain: uniqueSubdomain('cpy') })
  t.equal(corrupt.statusCode, 422)
  t.equal(corrupt.json().error.code, 'BACKUP_CORRUPT')
  t.equal(await count(), before, 'no instance recorded')
  const other = await signup(app)
  t.equal((await ask(other.token, { mode: 'new', name: 'Steal', subdomain: uniqueSubdomain('cpy') })).statusCode, 404, 'another company\'s backup')
})
