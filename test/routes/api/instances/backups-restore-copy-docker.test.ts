/**
 * Restore as a new instance against the stand-in ERP, which fails where Odoo fails: `/web/health`
 * answers 500 while its configured database is not initialised (the instances' health check reads
 * it here, as in production), and attachments are served from `filestore/<its own database>/`.
 * The copy must be loaded before its ERP first starts, get its filestore under its own database's
 * name, and its own database.uuid and database.secret.
 */
import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, inFilestore, onInstanceDatabase, waitForBackup } from '../../../support/backups.ts'
import { demuxFrames } from '../../../../provisioning/docker/logs.ts'

t.setTimeout(600_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

/** Odoo's external API over HTTP, as any client calls it. */
async function rpc (baseUrl: string, service: string, method: string, args: unknown[]): Promise<any> {
  const response = await fetch(`${baseUrl}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service, method, args }, id: 1 })
  })
  const body = await response.json() as { result?: unknown, error?: unknown }
  if (body.error !== undefined) throw new Error(`${service}.${method}: ${JSON.stringify(body.error)}`)
  return body.result
}

docker.test('a copy is loaded before its ERP first starts, and serves the source\'s attachments under its own database, with its own identity', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'backups-restore-copy', { ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1' })
  const admin = await signup(app)
  const view = async (id: number) => (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  const subdomain = uniqueSubdomain('src')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'], 120_000)
  const uid = await instanceUid(app, id)
  const source = await view(id)
  const password = (await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid }))?.adminPassword ?? ''

  // An attachment written through the ERP: its row in the database, its file in the filestore.
  const content = `invoice ${Math.random()}\n`
  const attachment = await rpc(source.local_url, 'object', 'execute_kw', [source.database_name, 2, password, 'ir.attachment', 'create', [{ name: 'invoice.txt', datas: Buffer.from(content).toString('base64') }], {}])
  t.type(attachment, 'number')
  const read = (url: string) => fetch(`${url}/web/content/${attachment}`)
  t.equal(await (await read(source.local_url)).text(), content, 'the source serves it')
  await inFilestore(subdomain, 'mkdir -p /data/sessions && echo who-is-logged-in > /data/sessions/werkzeug_1.sess')

  const backupId: number = (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id
  const backup = await waitForBackup(app, admin.token, id, backupId)
  t.equal(backup.state, 'completed', backup.error ?? '')

  const copySubdomain = uniqueSubdomain('cpy')
  const restored = await app.inject({ method: 'POST', url: `/api/instances/${id}/backups/${backupId}/restore`, headers: bearer(admin.token), payload: { mode: 'new', name: 'Copy', subdomain: copySubdomain } })
  t.equal(restored.statusCode, 202, restored.body)
  const copyId: number = restored.json().instance_id
  t.equal((await waitForState(app, admin.token, copyId, ['running'], 180_000)).state, 'running', 'the copy runs: its ERP is healthy on the restored database')
  const copy = await view(copyId)
  const copyUid = await instanceUid(app, copyId)

  const served = await read(copy.local_url)
  t.equal(served.status, 200, 'the copy serves the attachment')
  t.equal(await served.text(), content, 'with the source\'s content')
  // sessions/: the copy's ERP made its own (as Odoo does on every request), empty of the source's.
  t.equal((await inFilestore(copySubdomain, 'ls -A /data/filestore; ls -A /data; ls -A /data/sessions')).trim().split('\n').sort().join(' '),
    [copy.database_name, 'filestore', 'sessions'].sort().join(' '), 'one filestore folder, the copy\'s database\'s; no web sessions carried over')
  t.equal((await inFilestore(copySubdomain, 'stat -c %u:%g /data')).trim(), '101:101', 'the copy\'s data folder is its ERP\'s (uid 101), as the source\'s')

  const identity = (instanceUidValue: string) => onInstanceDatabase(databaseUrl, instanceUidValue, async (db) =>
    Object.fromEntries((await db.query<{ key: string, value: string }>("SELECT key, value FROM ir_config_parameter WHERE key IN ('database.uuid', 'database.secret')")).rows.map((r) => [r.key, r.value])))
  const [sourceIdentity, copyIdentity] = [await identity(uid), await identity(copyUid)]
  t.ok(sourceIdentity['database.uuid'] && copyIdentity['database.uuid'], 'both databases have a uuid')
  t.not(copyIdentity['database.uuid'], sourceIdentity['database.uuid'], 'the copy has its own database.uuid')
  t.not(copyIdentity['database.secret'], sourceIdentity['database.secret'], 'and its own database.secret')

  // Its ERP never served a request on an empty database: no request of its log was answered 500.
  const logs = demuxFrames(await dockerClient().getContainer(`erp-${copySubdomain}`).logs({ stdout: true, stderr: true }) as unknown as Buffer).text
  t.match(logs, /GET \/web\/health response:200/, 'its health check ran')
  t.notMatch(logs, /response:500/, 'and never found its database empty')
  const [secrets] = await app.sql<{ initialised: boolean }>({ text: 'SELECT initialised_at IS NOT NULL AS initialised FROM instance_erp_credentials WHERE instance_id = $1', values: [copyId] })
  t.same(secrets, { initialised: true }, 'recorded initialised: no start runs the ERP\'s initialisation on it')
  t.equal(await (await read(source.local_url)).text(), content, 'the source still serves its attachment')
})
