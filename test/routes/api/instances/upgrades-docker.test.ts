/**
 * Version upgrades end to end on the real Docker engine with the stand-in ERP (whose
 * `odoo -d <db> -u all --stop-after-init` records the version on its database as the system
 * parameter database.erp_version, or fails half-way on a module when told to): an apply that
 * succeeds runs the one-off upgrade container, makes the instance's container again from the
 * target's image on the same volume and records the new version; an apply that fails half-way is
 * rolled back: the instance runs its old image again on a database identical to the rollback point
 * (its rows read before and after), the half-written change gone.
 */
import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { tagTestImages, waitForState } from '../../../support/instances.ts'
import { buildBackupApp, inFilestore, onInstanceDatabase, seededInstance } from '../../../support/backups.ts'

t.setTimeout(900_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

const COMMANDS = JSON.stringify({
  '18.0': { image: 'erp-stand-in:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init', '--erp-version', '{target_version}'] }
})
const ENV = { ERP_UPGRADE_COMMANDS: COMMANDS, ERP_HEALTHCHECK: 'wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1', BACKUP_JOB_RETRIES: 0 }

async function settled (app: Awaited<ReturnType<typeof buildBackupApp>>['app'], token: string, id: number, upgradeId: number) {
  const deadline = Date.now() + 600_000
  for (;;) {
    const upgrade = (await app.inject({ method: 'GET', url: `/api/instances/${id}/upgrades/${upgradeId}`, headers: bearer(token) })).json().upgrade
    if (['succeeded', 'failed', 'rolled_back'].includes(upgrade.state)) return upgrade
    if (Date.now() > deadline) throw new Error(`upgrade ${upgradeId} still ${upgrade.state}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

const databaseState = (databaseUrl: string, uid: string) => onInstanceDatabase(databaseUrl, uid, async (db) => ({
  partners: (await db.query('SELECT id, name FROM partners ORDER BY id')).rows,
  version: (await db.query<{ value: string }>("SELECT value FROM ir_config_parameter WHERE key = 'database.erp_version'")).rows[0]?.value ?? null
}))

docker.test('apply: upgraded by the one-off container, running the target image on the same data', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'upgrade-apply', ENV)
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, { prefix: 'up', names: ['Ada', 'Grace'], files: 'mkdir -p /data/filestore && echo invoice > /data/filestore/a' })
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(response.statusCode, 202, response.body)
  const done = await settled(app, admin.token, id, response.json().upgrade.id)
  t.equal(done.state, 'succeeded', done.error ?? '')
  t.match(done.log_tail, /upgraded to 18\.0/)
  t.same(done.failed_modules, [])
  t.match((await waitForState(app, admin.token, id, ['running'])), { state: 'running' })
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance.erp_version, '18.0')
  const info = await dockerClient().getContainer(`erp-${subdomain}`).inspect()
  t.equal(info.Config.Image, 'erp-stand-in:18.0', 'the container runs the target image')
  t.same(await databaseState(databaseUrl, uid), { partners: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }], version: '18.0' }, 'the same data, upgraded')
  t.match(await inFilestore(subdomain, 'cat /data/filestore/a'), /invoice/, 'the same volume')
  t.same(await dockerClient().listContainers({ all: true, filters: { name: [`erp-${subdomain}-upgrade`] } }), [], 'the one-off upgrade container is removed')
})

docker.test('apply that fails half-way: rolled back to the rollback point, running the old image on identical data', async (t) => {
  const { app, databaseUrl } = await buildBackupApp(t, 'upgrade-rollback', ENV)
  const admin = await signup(app)
  const { id, uid, subdomain } = await seededInstance(app, databaseUrl, admin, { prefix: 'ur', names: ['Ada', 'Grace'], files: 'mkdir -p /data/filestore && echo invoice > /data/filestore/a' })
  await inFilestore(subdomain, 'mkdir -p /data/erp-test-image && echo "sale_custom: field x does not exist" > /data/erp-test-image/upgrade-fails')
  const before = await databaseState(databaseUrl, uid)
  const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload: { target_version: '18.0', mode: 'apply' } })
  t.equal(response.statusCode, 202, response.body)
  const done = await settled(app, admin.token, id, response.json().upgrade.id)
  t.equal(done.state, 'rolled_back', done.error ?? '')
  t.match(done.error, /exited with code 255[\s\S]*Failed to load registry/)
  t.same(done.failed_modules, ['sale_custom'])
  t.equal((await waitForState(app, admin.token, id, ['running'])).state, 'running')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance.erp_version, '17.0')
  t.equal((await dockerClient().getContainer(`erp-${subdomain}`).inspect()).Config.Image, 'erp-stand-in:17.0', 'the old image')
  t.same(await databaseState(databaseUrl, uid), before, 'the rollback point\'s rows, without the half-written version')
  t.equal(before.version, null)
})
