/**
 * The backup Job's script, run for real: the fake API server runs nothing, so the script the Job
 * carries is run here in the backup image on the Docker engine, with the Secret's variables, a
 * filestore at /data and the backup claim at /backups, against the machine's PostgreSQL. What it
 * writes must be an archive the restore path accepts, and the size and SHA-256 it reports must be
 * the file's.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import pg from 'pg'
import { readArchive, hashFile } from '../../../plugins/app/backups/backup-archive.ts'
import { BACKUP_SCRIPT, parseResult } from '../../../provisioning/kubernetes/backup-job.ts'
import { requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { adminUrl, claimFolders, runScript } from '../../support/backup-scripts.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('the script writes a whole archive that readArchive accepts, and reports its size and SHA-256', async (t) => {
  const admin = adminUrl()
  const database = `kube_backup_script_${process.pid}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS ${database}`)
  await client.query(`CREATE DATABASE ${database}`)
  t.teardown(async () => { await client.query(`DROP DATABASE IF EXISTS ${database}`); await client.end() })
  const db = new pg.Client({ connectionString: Object.assign(new URL(admin), { pathname: `/${database}` }).toString() })
  await db.connect()
  await db.query("CREATE TABLE partners (id int PRIMARY KEY, name text); INSERT INTO partners VALUES (1, 'Ada'), (2, 'Grace')")
  await db.end()

  const { root, data, backups } = claimFolders(t, 'kube-backup-script-')
  // The ERP's web sessions: logins of the moment, not data.
  mkdirSync(join(data, 'sessions', 'ab'), { recursive: true })
  writeFileSync(join(data, 'sessions', 'ab', 'werkzeug_1.sess'), 'session\n')
  const head = JSON.stringify({ format: 1, backup_id: 5, created_at: new Date().toISOString(), instance: { id: 1, name: 'Shop', subdomain: 'shop' }, tenant: { id: 't', subdomain: 'acme' }, erp_version: '17.0', pg_major: 15 }).slice(0, -1)
  const { code, log } = await runScript(t, BACKUP_SCRIPT, { ERP_DATABASE: database, BACKUP_ID: '5', ARCHIVE: '/backups/inst-1/backup-5.tar', MANIFEST_HEAD: head }, [`${data}:/data:ro`, `${backups}:/backups`])
  t.equal(code, 0, log)

  const archive = join(backups, 'inst-1', 'backup-5.tar')
  t.same(parseResult(log), await hashFile(archive), 'the reported size and SHA-256 are the file\'s')
  t.same(execFileSync('ls', ['-A', backups]).toString().trim().split('\n'), ['inst-1'], 'no work folder left behind')
  const out = join(root, 'out')
  mkdirSync(out)
  const manifest = await readArchive(archive, out)
  t.match(manifest, { backup_id: 5, instance: { subdomain: 'shop' }, pg_major: 15, parts: [{ name: 'database.dump' }, { name: 'filestore.tar' }] })
  t.match(execFileSync('pg_restore', ['--list', join(out, 'database.dump')], { encoding: 'utf8' }), /TABLE DATA public partners/)
  const files = execFileSync('tar', ['-tf', join(out, 'filestore.tar')], { encoding: 'utf8' }).split('\n')
  t.ok(files.includes('data/filestore/ab/cafe') && files.includes('data/.hidden'), 'the filestore under data/, hidden files included')
  t.same(files.filter((f) => f.includes('sessions')), [], 'the web sessions are left out')
  t.equal(readFileSync(join(data, 'filestore', 'ab', 'cafe'), 'utf8'), 'invoice-1\n')

  // A volume holding nothing but sessions still makes an archive with its data/ folder.
  for (const entry of ['filestore', '.hidden']) rmSync(join(data, entry), { recursive: true })
  rmSync(archive)
  const bare = await runScript(t, BACKUP_SCRIPT, { ERP_DATABASE: database, BACKUP_ID: '6', ARCHIVE: '/backups/inst-1/backup-5.tar', MANIFEST_HEAD: head }, [`${data}:/data:ro`, `${backups}:/backups`])
  t.equal(bare.code, 0, bare.log)
  const bareOut = join(root, 'bare')
  mkdirSync(bareOut)
  await readArchive(archive, bareOut)
  t.same(execFileSync('tar', ['-tf', join(bareOut, 'filestore.tar')], { encoding: 'utf8' }).trim().split('\n'), ['data/'])
})
