/**
 * The restore Job's script, run for real (the fake API server runs nothing): an archive made by
 * the backup Job's script is loaded by the restore script, each in the backup image on the Docker
 * engine, with the Secret's variables, the data claim at /data and the backup claim at /backups,
 * against the machine's PostgreSQL, and the settling Job's scripts after it. A corrupt archive
 * changes nothing.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import pg from 'pg'
import { BACKUP_SCRIPT, parseResult } from '../../../provisioning/kubernetes/backup-job.ts'
import { DATA_PATH, parseRestoreResult, RESTORE_SCRIPT } from '../../../provisioning/kubernetes/restore-script.ts'
import { dropReplaced, putReplacedBack } from '../../../provisioning/filestore-swap.ts'
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

async function fixture (t: Test) {
  const live = `kube_restore_live_${process.pid}_${Math.random().toString(16).slice(2, 8)}`
  const staged = `${live}_restore`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  for (const name of [live, staged]) await client.query(`CREATE DATABASE ${name}`)
  t.teardown(async () => { for (const name of [live, staged]) await client.query(`DROP DATABASE IF EXISTS ${name}`); await client.end() })
  await sql(live, "CREATE TABLE partners (id int PRIMARY KEY, name text); INSERT INTO partners VALUES (1, 'Ada'), (2, 'Grace')")

  const { data, backups } = claimFolders(t, 'kube-restore-script-')
  const head = JSON.stringify({ format: 1, backup_id: 5, instance: { id: 1, subdomain: 'shop' }, pg_major: 15 }).slice(0, -1)
  const made = await runScript(t, BACKUP_SCRIPT, { ERP_DATABASE: live, BACKUP_ID: '5', ARCHIVE: '/backups/i/backup-5.tar', MANIFEST_HEAD: head }, [`${data}:/data:ro`, `${backups}:/backups`])
  t.equal(made.code, 0, made.log)
  const original = listing(data)
  // What happened after the backup: rows and files the restore must take back.
  await sql(live, "UPDATE partners SET name = 'changed'; CREATE TABLE later (x int)")
  writeFileSync(join(data, 'filestore', 'ab', 'cafe'), 'invoice-1 edited\n')
  writeFileSync(join(data, 'filestore', 'ab', 'beef'), 'new since\n')
  const archive = join(backups, 'i', 'backup-5.tar')
  const restore = (sha256: string) => runScript(t, RESTORE_SCRIPT, { ARCHIVE: '/backups/i/backup-5.tar', EXPECTED_SHA256: sha256, RESTORE_DATABASE: staged, ERP_DATABASE: live }, [`${backups}:/backups:ro`, `${data}:/data`])
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
