/**
 * Addon sources on the default settings: the backends offered by default can all hold addon code,
 * so a sync succeeds out of the box; an enabled backend that is not configured here (Kubernetes
 * without a kubeconfig) is skipped with a log line, never failing the sync.
 */
import t, { type Test } from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signup } from '../../../support/accounts.ts'
import { api, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { build } from '../../../support/build.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { captureLog } from '../../../support/log-capture.ts'

t.setTimeout(120_000)

async function syncOnce (t: Test, env: Record<string, unknown>) {
  const git = await startGitServer(t)
  const addonsRoot = mkdtempSync(join(tmpdir(), 'erp-addons-'))
  t.teardown(() => rmSync(addonsRoot, { recursive: true, force: true }))
  const { lines, logger } = captureLog()
  // No INSTANCE_BACKENDS unless `env` says: the schema's default.
  const { app, config } = await build(t, { logger, env: { ADDONS_ROOT: addonsRoot, ADDON_SOURCE_ALLOWED_HOSTS: 'localhost', ADDON_SOURCE_SYNC_RETRIES: 0, ...env } })
  const admin = await signup(app)
  const call = api(app, admin.token)
  const repo = await git.repo('default-addons')
  const commit = await repo.commit({ 'sale_extra/__manifest__.py': manifest('Sale Extra'), 'sale_extra/models.py': 'VERSION = 1\n' })
  const source = (await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main' })).json.addon_source
  t.equal((await call('POST', `/api/addon-sources/${source.id}/sync`)).status, 202)
  const synced = await waitForSync(call, source.id)
  return { synced, commit, lines, config, addons: join(addonsRoot, admin.subdomain, 'addons') }
}

t.test('a sync on the default settings succeeds: the default offers Docker, whose storage is this host', async (t) => {
  const { synced, commit, config, addons } = await syncOnce(t, {})
  t.same(config.instanceBackends, ['docker'], 'the default offers the Docker backend only')
  t.match(synced, { state: 'synced', last_commit: commit, modules: ['sale_extra'], error: null })
  t.equal(readFileSync(join(addons, 'sale_extra', 'models.py'), 'utf8'), 'VERSION = 1\n', 'the code is in the company\'s addons folder')
})

t.test('Kubernetes offered but not configured: the sync writes to Docker\'s storage and says it skipped Kubernetes', async (t) => {
  const { synced, commit, lines, addons } = await syncOnce(t, { INSTANCE_BACKENDS: 'docker,kubernetes' })
  t.match(synced, { state: 'synced', last_commit: commit, modules: ['sale_extra'], error: null }, 'not "the kubernetes backend is not configured"')
  t.ok(existsSync(join(addons, 'sale_extra', '__manifest__.py')))
  const skipped = lines.find((line) => line.msg === 'Addon source sync skips backends that are not configured here')
  t.match(skipped, { level: 30, backends: ['kubernetes'], addon_source_id: synced.id, component: 'addon-source-sync' }, 'one info line names the skipped backend')
})

t.test('no enabled backend configured: the sync fails at once and says so, in the company\'s words', async (t) => {
  const { synced } = await syncOnce(t, { INSTANCE_BACKENDS: 'kubernetes' })
  t.match(synced, { state: 'failed', error: 'no backend of this installation can keep addon code now', last_commit: null })
  t.notMatch(synced.error, /KUBECONFIG|kubernetes/i, 'no platform internals')
})
