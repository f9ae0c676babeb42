/**
 * The restore Job's script, run for real (the fake API server runs nothing): an archive made by
 * the backup Job's script is loaded by the restore script, each in the backup image on the Docker
 * engine, with the Secret's variables, the data claim at /data and the backup claim at /backups,
 * against the machine's PostgreSQL, and the settling Job's scripts after it. A corrupt archive
 * changes nothing.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import pg from 'pg'
import { BACKUP_SCRIPT, parseResult } from '../../../provisioning/kubernetes/backup-job.ts'
import { DATA_PATH, parseRestoreResult, RESTORE_SCRIPT } from '../../../provisioning/kubernetes/restore-script.ts'
import { dropReplaced, filestoreRename, putReplacedBack } from '../../../provisioning/filestore-swap.ts'
import { COPY_IDENTITY_ENV } from '../../../provisioning/copy-identity.ts'
import { requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { adminUrl, claimFolders, runScript } from '../../support/backup-scripts.ts'

const docker = await requireDockerOrSkipLoudly(t)
const admin = adminUrl()
const dbUrl = (database: string): string => Object.assign(new URL(admin), { pathname: `/${database}` }).toString()

async function sql<T extends pg.QueryResultRow> (database: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: dbUrl(database) })
  await client.connect()
  try { return (await client.query<T>(text)).rows } finally { await client.end() }
}

const listing = (dir: string): string => execFileSync('sh', ['-c', 'cd "$0" && find . | sort && cat filestore/ab/* 2>/dev/null || true', dir], { encoding: 'utf8' })

/** `prepare` adds to the live database and data claim before the backup. */
async function fixture (t: Test, prepare?: (data: string, live: string) => Promise<void>) {
  const live = `kube_restore_live_${process.pid}_${Math.random().toString(16).slice(2, 8)}`
  const staged = `${live}_restore`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  for (const name of [live, staged]) await client.query(`CREATE DATABASE ${name}`)
  t.teardown(async () => { for (const name of [live, staged]) await client.query(`DROP DATABASE IF EXISTS ${name}`); await client.end() })
  await sql(live, "CREATE TABLE partners (id int PRIMARY KEY, name text); INSERT INTO partners VALUES (1, 'Ada'), (2, 'Grace')")

  const { data, backups } = claimFolders(t, 'kube-restore-script-')
  await prepare?.(data, live)
  const head = JSON.stringify({ format: 1, backup_id: 5, instance: { id: 1, subdomain: 'shop' }, pg_major: 15 }).slice(0, -1)
  const made = await runScript(t, BACKUP_SCRIPT, { ERP_DATABASE: live, BACKUP_ID: '5', ARCHIVE: '/backups/i/backup-5.tar', MANIFEST_HEAD: head }, [`${data}:/data:ro`, `${backups}:/backups`])
  t.equal(made.code, 0, made.log)
  const original = listing(data)
  // What happened after the backup: rows and files the restore must take back.
  await sql(live, "UPDATE partners SET name = 'changed'; CREATE TABLE later (x int)")
  writeFileSync(join(data, 'filestore', 'ab', 'cafe'), 'invoice-1 edited\n')
  writeFileSync(join(data, 'filestore', 'ab', 'beef'), 'new since\n')
  const archive = join(backups, 'i', 'backup-5.tar')
  const restore = (sha256: string, env: Record<string, string> = {}) => runScript(t, RESTORE_SCRIPT, { ARCHIVE: '/backups/i/backup-5.tar', EXPECTED_SHA256: sha256, RESTORE_DATABASE: staged, ERP_DATABASE: live, ...env }, [`${backups}:/backups:ro`, `${data}:/data`])
  return { live, staged, data, archive, original, sha256: parseResult(made.log)?.sha256 ?? '', restore }
}

docker.test('the archive goes into the staged database, the filestore is swapped for the backup\'s, the replaced files kept until settled', async (t) => {
  const { staged, data, original, sha256, restore } = await fixture(t)
  const changed = listing(data)
  const settle = async (keep: 'restored' | 'replaced') => {
    const settled = await runScript(t, keep === 'restored' ? dropReplaced(DATA_PATH) : putReplacedBack(DATA_PATH), {}, [`${data}:/data`])
    t.equal(settled.code, 0, settled.log)
  }
  const done = await restore(sha256)
  t.equal(done.code, 0, done.log)
  t.same(parseRestoreResult(done.log), { state: 'ok' })
  t.same(await sql(staged, 'SELECT id, name FROM partners ORDER BY id'), [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }])
  t.equal(readFileSync(join(data, 'filestore', 'ab', 'cafe'), 'utf8'), 'invoice-1\n', 'the backup\'s files are in place')
  t.equal(readFileSync(join(data, '.restore-old', 'filestore', 'ab', 'cafe'), 'utf8'), 'invoice-1 edited\n', 'the replaced ones aside')

  await settle('replaced')
  t.equal(listing(data), changed, 'the database could not be promoted: the replaced files are back, nothing restored or aside is left')

  const again = await restore(sha256)
  t.equal(again.code, 0, `run again it converges: ${again.log}`)
  await restore(sha256)
  await settle('restored')
  t.equal(listing(data), original, 'settled: exactly the backup\'s files, hidden ones included, and no working folders left')
  t.equal(readFileSync(join(data, '.hidden'), 'utf8'), 'keep\n')
})

docker.test('an archive that is not the recorded one, or a part that is not the manifest\'s, changes nothing', async (t) => {
  const { live, staged, data, archive, sha256, restore } = await fixture(t)
  const before = listing(data)
  const wrong = await restore('0'.repeat(64))
  t.equal(wrong.code, 3)
  t.match(parseRestoreResult(wrong.log), { state: 'corrupt', message: new RegExp(`the archive's SHA-256 is ${sha256}, the backup recorded 0{64}`) })

  // A byte of the filestore part flipped: the whole archive's SHA-256 is then the recorded one, the part's is not.
  const bytes = readFileSync(archive)
  const at = bytes.indexOf(Buffer.from('invoice-1\n'))
  bytes[at] = 'J'.charCodeAt(0)
  writeFileSync(archive, bytes)
  const tampered = await restore(createHash('sha256').update(bytes).digest('hex'))
  t.equal(tampered.code, 3)
  t.match(parseRestoreResult(tampered.log), { state: 'corrupt', message: /^filestore\.tar has SHA-256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}$/ })

  t.equal(listing(data), before, 'the filestore as it was')
  t.same(await sql(live, 'SELECT name FROM partners ORDER BY id'), [{ name: 'changed' }, { name: 'changed' }])
  t.same(await sql(staged, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), [{ n: 0 }], 'nothing loaded')
})

docker.test('into a new instance: the filestore folder takes the copy\'s database name and its database its own identity; the web sessions stay behind; in place both are kept', async (t) => {
  const identity = (database: string) => sql<{ key: string, value: string }>(database, "SELECT key, value FROM ir_config_parameter WHERE key IN ('database.uuid', 'database.secret') ORDER BY key")
  const { live, staged, data, sha256, restore } = await fixture(t, async (data, live) => {
    // As the ERP keeps them: parameters in the database, attachments under filestore/<database name>/, web sessions aside.
    await sql(live, 'CREATE TABLE ir_config_parameter (id serial PRIMARY KEY, key varchar NOT NULL UNIQUE, value text NOT NULL); ' +
      "INSERT INTO ir_config_parameter (key, value) VALUES ('database.uuid', '11111111-1111-4111-8111-111111111111'), ('database.secret', 'source-secret'), ('web.base.url', 'https://shop.erp.test')")
    mkdirSync(join(data, 'filestore', live, '3f'), { recursive: true })
    writeFileSync(join(data, 'filestore', live, '3f', '3fa2'), 'attachment\n')
    mkdirSync(join(data, 'sessions'))
    writeFileSync(join(data, 'sessions', 'werkzeug_1.sess'), 'session\n')
  })
  const source = await identity(live)

  const inPlace = await restore(sha256)
  t.equal(inPlace.code, 0, inPlace.log)
  t.same(await identity(staged), source, 'in place: the database keeps its uuid and secret')
  t.equal(readFileSync(join(data, 'filestore', live, '3f', '3fa2'), 'utf8'), 'attachment\n', 'in place: the folder keeps its name')
  t.notOk(existsSync(join(data, 'sessions')), 'no web sessions restored')
  t.equal((await runScript(t, dropReplaced(DATA_PATH), {}, [`${data}:/data`])).code, 0)

  const target = `${live}_copy`
  const copied = await restore(sha256, { ...filestoreRename(live, target), ...COPY_IDENTITY_ENV })
  t.equal(copied.code, 0, copied.log)
  const own = await identity(staged)
  t.equal(own.length, 2)
  for (const [index, parameter] of own.entries()) {
    t.match(parameter.value, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, `${parameter.key} is a new random uuid`)
    t.not(parameter.value, source[index]?.value, `${parameter.key} differs from the source's`)
  }
  t.not(own[0]?.value, own[1]?.value)
  t.same(await sql(staged, "SELECT value FROM ir_config_parameter WHERE key = 'web.base.url'"), [{ value: 'https://shop.erp.test' }], 'other parameters as they were')
  t.same(await identity(live), source, 'the source database is untouched')
  t.equal(readFileSync(join(data, 'filestore', target, '3f', '3fa2'), 'utf8'), 'attachment\n', 'the attachments are where the copy\'s ERP reads them')
  t.notOk(existsSync(join(data, 'filestore', live)), 'and not under the source\'s name')
  t.equal(readFileSync(join(data, 'filestore', 'ab', 'cafe'), 'utf8'), 'invoice-1\n', 'other files as they were')
})
