/**
 * The Docker backup runner on the real engine and the machine's PostgreSQL: an exported filestore
 * leaves the ERP's web sessions out; restored into another instance (a copy), the attachments
 * folder takes the copy's database name and the database gets its own `database.uuid` and
 * `database.secret`, as the ERP's own copy-restore does; restored in place, both stay as they were.
 */
import { randomUUID } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { buffer } from 'node:stream/consumers'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import pg from 'pg'
import { pack } from 'tar-stream'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { createDockerBackupRunner } from '../../../provisioning/docker/backup-runner.ts'
import { createEngineCall } from '../../../provisioning/docker/engine-calls.ts'
import { dataVolumeName } from '../../../provisioning/docker/names.ts'
import { backupTestImage, inFilestore } from '../../support/backups.ts'
import { adminUrl } from '../../support/backup-scripts.ts'
import { cleanupContainers, dockerClient, newTestRun, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { uniqueSubdomain } from '../../support/instances.ts'

const docker = await requireDockerOrSkipLoudly(t)

/** inFilestore as root: these volumes are made here and no ERP ever mounted them, so their root is root's (Docker populates a volume from the image of its first container only). */
const onVolume = (subdomain: string, script: string): Promise<string> => inFilestore(subdomain, script, { user: '0' })

const LIST = 'cd /data && find . | sort | while read -r f; do if [ -f "$f" ]; then echo "$f $(cat "$f")"; else echo "$f/"; fi; done'

docker.test('a copy gets its filestore under its own database name and its own identity; the web sessions are never carried', async (t) => {
  const engine = dockerClient()
  const run = newTestRun()
  t.teardown(() => cleanupContainers(run.label))
  const runner = createDockerBackupRunner(engine, createEngineCall(engine, 60_000), { imageTemplate: await backupTestImage(), labels: run.labels, pullTimeoutMs: 10_000 })
  const scratch = mkdtempSync(join(tmpdir(), 'restore-as-copy-'))
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }))

  const admin = new pg.Client({ connectionString: adminUrl() })
  await admin.connect()
  const suffix = `${process.pid}_${Math.random().toString(16).slice(2, 8)}`
  const [source, copy] = [`copy_src_${suffix}`, `copy_dst_${suffix}`]
  for (const name of [source, copy]) await admin.query(`CREATE DATABASE ${name}`)
  t.teardown(async () => { for (const name of [source, copy]) await admin.query(`DROP DATABASE IF EXISTS ${name}`); await admin.end() })
  const sql = async <T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: Object.assign(new URL(adminUrl()), { pathname: `/${database}` }).toString() })
    await client.connect()
    try { return (await client.query<T>(text)).rows } finally { await client.end() }
  }
  const identity = (database: string) => sql<{ key: string, value: string }>(database, "SELECT key, value FROM ir_config_parameter WHERE key LIKE 'database.%' ORDER BY key")

  const url = new URL(adminUrl())
  const specOf = async (prefix: string, database: string): Promise<InstanceSpec> => {
    const subdomain = uniqueSubdomain(prefix)
    await engine.createVolume({ Name: dataVolumeName(subdomain), Labels: run.labels })
    t.teardown(() => engine.getVolume(dataVolumeName(subdomain)).remove().catch(() => {}))
    return { instanceUid: randomUUID(), subdomain, database: { host: url.hostname, port: Number(url.port || 5432), name: database, user: url.username, password: url.password } } as InstanceSpec
  }
  const from = await specOf('csrc', source)
  const into = await specOf('cdst', copy)

  // The source as the ERP keeps it: parameters in its database, attachments under filestore/<database name>/, web sessions aside.
  await sql(source, 'CREATE TABLE ir_config_parameter (id serial PRIMARY KEY, key varchar NOT NULL UNIQUE, value text NOT NULL); ' +
    "INSERT INTO ir_config_parameter (key, value) VALUES ('database.uuid', '11111111-1111-4111-8111-111111111111'), ('database.secret', 'source-secret'), ('database.create_date', '2026-01-01')")
  await onVolume(from.subdomain, `mkdir -p /data/filestore/${source}/3f /data/sessions && echo attachment > /data/filestore/${source}/3f/3fa2 && echo session > /data/sessions/werkzeug_1.sess && echo keep > /data/.hidden`)
  const dump = join(scratch, 'database.dump')
  const files = join(scratch, 'filestore.tar')
  await runner.dumpDatabase(from, 0, dump)
  await runner.exportFilestore(from, 0, files)
  const entries = execFileSync('tar', ['-tf', files], { encoding: 'utf8' }).trim().split('\n')
  t.same(entries.filter((entry) => entry.includes('sessions')), [], 'the exported filestore leaves the web sessions out')
  t.ok(entries.includes(`data/filestore/${source}/3f/3fa2`) && entries.includes('data/.hidden'), 'and holds everything else')

  // Restored as a copy: the copy's database and volume (which holds sessions of its own).
  await onVolume(into.subdomain, 'mkdir -p /data/sessions && echo mine > /data/sessions/werkzeug_2.sess')
  await runner.restoreDatabase(into, 0, dump, { sourceDatabase: source })
  await runner.importFilestore(into, 0, files, { sourceDatabase: source })
  await runner.settleFilestore(into, 0, 'restored')
  const [sourceIdentity, copyIdentity] = [await identity(source), await identity(copy)]
  t.same(copyIdentity.map((p) => p.key), ['database.create_date', 'database.secret', 'database.uuid'])
  t.equal(copyIdentity[0]?.value, '2026-01-01', 'other parameters as they were')
  for (const index of [1, 2]) {
    t.match(copyIdentity[index]?.value, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, `${copyIdentity[index]?.key} is a new random uuid`)
    t.not(copyIdentity[index]?.value, sourceIdentity[index]?.value, `${copyIdentity[index]?.key} is not the source's`)
  }
  t.equal(await onVolume(into.subdomain, LIST), ['./', './.hidden keep', './filestore/', `./filestore/${copy}/`, `./filestore/${copy}/3f/`, `./filestore/${copy}/3f/3fa2 attachment`, ''].join('\n'),
    'the attachments under the copy\'s database name, no folder of the source\'s name, no web sessions')

  // Restored in place: the identity and the folder name stay.
  await runner.restoreDatabase(from, 0, dump)
  await runner.importFilestore(from, 0, files)
  await runner.settleFilestore(from, 0, 'restored')
  t.same(await identity(source), sourceIdentity, 'in place: the database keeps its uuid and secret')
  t.match(await onVolume(from.subdomain, LIST), `./filestore/${source}/3f/3fa2 attachment`)

  // An archive made before sessions were left out: its sessions/ stays behind at the restore.
  const old = pack()
  for (const [name, content] of [['data/', null], ['data/sessions/', null], ['data/sessions/werkzeug_9.sess', 'old login\n'], ['data/config', 'old\n']] as const) {
    if (content === null) old.entry({ name, type: 'directory', mode: 0o755 })
    else old.entry({ name, mode: 0o644 }, content)
  }
  old.finalize()
  const oldFile = join(scratch, 'old-filestore.tar')
  writeFileSync(oldFile, await buffer(old))
  await runner.importFilestore(into, 0, oldFile, { sourceDatabase: source })
  await runner.settleFilestore(into, 0, 'restored')
  t.equal(await onVolume(into.subdomain, LIST), './\n./config old\n', 'an old archive\'s web sessions are not restored')
  t.same(await engine.listContainers({ all: true, filters: { label: [run.label] } }), [], 'every one-off container was removed')
})
