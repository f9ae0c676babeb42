/**
 * The backup Job's script, run for real: the fake API server runs nothing, so the script the Job
 * carries is run here in the backup image on the Docker engine, with the Secret's variables, a
 * filestore at /data and the backup claim at /backups, against the machine's PostgreSQL. What it
 * writes must be an archive the restore path accepts, and the size and SHA-256 it reports must be
 * the file's.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import pg from 'pg'
import { readArchive, hashFile } from '../../../plugins/app/backups/backup-archive.ts'
import { BACKUP_SCRIPT, parseResult } from '../../../provisioning/kubernetes/backup-job.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { demuxFrames } from '../../../provisioning/docker/logs.ts'
import { backupTestImage } from '../../support/backups.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('the script writes a whole archive that readArchive accepts, and reports its size and SHA-256', async (t) => {
  const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
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

  const root = mkdtempSync(join(tmpdir(), 'kube-backup-script-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const data = join(root, 'data')
  const backups = join(root, 'backups')
  mkdirSync(join(data, 'filestore', 'ab'), { recursive: true })
  mkdirSync(backups)
  writeFileSync(join(data, 'filestore', 'ab', 'cafe'), 'invoice-1\n')
  writeFileSync(join(data, '.hidden'), 'keep\n')

  const url = new URL(admin)
  const head = JSON.stringify({ format: 1, backup_id: 5, created_at: new Date().toISOString(), instance: { id: 1, name: 'Shop', subdomain: 'shop' }, tenant: { id: 't', subdomain: 'acme' }, erp_version: '17.0', pg_major: 15 }).slice(0, -1)
  const engine = dockerClient()
  // The stand-in image has busybox without its applet links (mv, cut, dirname …); a real postgres image has coreutils.
  const container = await engine.createContainer({
    Image: await backupTestImage(),
    Entrypoint: ['/bin/sh', '-c', 'mkdir -p /tmp/bb && /bin/busybox --install -s /tmp/bb && PATH="$PATH:/tmp/bb" exec sh -c "$0"', BACKUP_SCRIPT],
    User: `${process.getuid?.() ?? 0}`,
    Env: [`HOST=${url.hostname}`, `PORT=${url.port || '5432'}`, `USER=${url.username}`, `PASSWORD=${url.password}`, `ERP_DATABASE=${database}`, 'BACKUP_ID=5', 'ARCHIVE=/backups/inst-1/backup-5.tar', `MANIFEST_HEAD=${head}`],
    Labels: { 'erp.test-kube-backup-script': '1' },
    HostConfig: { NetworkMode: 'host', Binds: [`${data}:/data:ro`, `${backups}:/backups`] }
  })
  t.teardown(() => container.remove({ force: true }).catch(() => {}))
  await container.start()
  const { StatusCode } = await container.wait() as { StatusCode: number }
  const log = demuxFrames(await container.logs({ stdout: true, stderr: true }) as unknown as Buffer).text
  t.equal(StatusCode, 0, log)

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
  t.equal(readFileSync(join(data, 'filestore', 'ab', 'cafe'), 'utf8'), 'invoice-1\n')
})
