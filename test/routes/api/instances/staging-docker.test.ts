/**
 * Staging copies end to end on the real Docker engine with the stand-in ERP (which, like Odoo 16+,
 * has `odoo neutralize -d <db>`: scheduled actions and mail servers off, database.is_neutralized
 * set): a copy made from a fresh backup runs with one worker on a neutralized database while its
 * production instance keeps its own; a copy whose neutralization fails ends in `error` with the
 * ERP's message, and its ERP container never started.
 */
import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, inFilestore, onInstanceDatabase, waitForBackup } from '../../../support/backups.ts'

t.setTimeout(900_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

interface Neutral { crons: boolean[], mailServers: boolean[], neutralized: string | null }

const neutralState = (databaseUrl: string, uid: string): Promise<Neutral> => onInstanceDatabase(databaseUrl, uid, async (db) => ({
  crons: (await db.query<{ active: boolean }>('SELECT active FROM ir_cron ORDER BY id')).rows.map((r) => r.active),
  mailServers: (await db.query<{ active: boolean }>('SELECT active FROM ir_mail_server ORDER BY id')).rows.map((r) => r.active),
  neutralized: (await db.query<{ value: string }>("SELECT value FROM ir_config_parameter WHERE key = 'database.is_neutralized'")).rows[0]?.value ?? null
}))

docker.test('a staging copy from a fresh backup runs neutralized, with one worker; its production instance is untouched', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'staging-copy', { ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1' })
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('prd')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'], 120_000)
  const uid = await instanceUid(app, id)
  await onInstanceDatabase(databaseUrl, uid, (db) => db.query("INSERT INTO ir_mail_server (name, smtp_host) VALUES ('Production SMTP', 'smtp.example.com')"))

  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/staging`, headers: bearer(admin.token), payload: {} })
  t.equal(response.statusCode, 202, response.body)
  const copy = response.json().instance
  t.match(copy, { kind: 'staging', parent_id: id, subdomain: `${subdomain}-staging` })
  t.equal((await waitForState(app, admin.token, copy.id, ['running'], 300_000)).state, 'running', 'the copy runs')
  const copyUid = await instanceUid(app, copy.id)
  t.same(await neutralState(databaseUrl, copyUid), { crons: [true, false], mailServers: [false, true], neutralized: 'true' },
    'the copy\'s database is neutralized: the autovacuum alone runs, mail goes to Odoo\'s dummy server')
  t.same(await neutralState(databaseUrl, uid), { crons: [true, true], mailServers: [true], neutralized: null }, 'production keeps its scheduled actions and mail server')
  const info = await dockerClient().getContainer(`erp-${copy.subdomain}`).inspect()
  t.ok(info.Config.Env.includes('ERP_WORKERS=1'), 'one worker')
  const leftovers = await dockerClient().listContainers({ all: true, filters: { name: [`erp-${copy.subdomain}-neutralize`] } })
  t.same(leftovers, [], 'the one-off neutralization container is removed')
  const parent = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.same(parent.staging_ids, [copy.id])
})

docker.test('a failed neutralization: the copy is in error with the ERP\'s message, its ERP never started', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'staging-fail', { ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1' })
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('prd')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'], 120_000)
  // The stand-in fails its neutralization while this file is on the data volume: the backup carries it to the copy.
  await inFilestore(subdomain, 'mkdir -p /data/erp-test-image && echo "psycopg2.errors.UndefinedTable: relation \\"ir_cron\\" does not exist" > /data/erp-test-image/neutralize-fails')
  const backupId: number = (await app.inject({ method: 'POST', url: `/api/instances/${id}/backup`, headers: bearer(admin.token) })).json().backup.id
  t.equal((await waitForBackup(app, admin.token, id, backupId)).state, 'completed')

  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/staging`, headers: bearer(admin.token), payload: { from_backup_id: backupId } })
  t.equal(response.statusCode, 202, response.body)
  const copy = response.json().instance
  t.equal((await waitForState(app, admin.token, copy.id, ['error'], 300_000)).state, 'error')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${copy.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, /neutralization exited with code 1[\s\S]*relation "ir_cron" does not exist/)
  const info = await dockerClient().getContainer(`erp-${copy.subdomain}`).inspect()
  t.equal(info.State.StartedAt, '0001-01-01T00:00:00Z', 'the copy\'s ERP container was never started')
  t.same((await neutralState(databaseUrl, await instanceUid(app, copy.id))).neutralized, null)
})
