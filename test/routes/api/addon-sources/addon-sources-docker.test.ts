import t from 'tap'
import { bearer, signup } from '../../../support/accounts.ts'
import { api, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { build } from '../../../support/build.ts'
import { execIn, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'

t.setTimeout(180_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('a running instance sees the synced modules in its mounted addons folder, switching from old to new at once', async (t) => {
  const git = await startGitServer(t)
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { ADDON_SOURCE_ALLOWED_HOSTS: 'localhost', ADDON_SOURCE_SYNC_RETRIES: 0 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const call = api(app, admin.token)
  const subdomain = uniqueSubdomain('addons')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Addons', subdomain, erp_version: '17.0', backend: 'docker' } })
  t.equal(created.statusCode, 202, created.body)
  const instanceId = created.json().instance.id as number
  const started = await waitForState(app, admin.token, instanceId, ['running', 'error'], 120_000)
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${instanceId}`, headers: bearer(admin.token) })).json().instance
  t.equal(started.state, 'running', detail.status_message)
  const container = docker.docker.getContainer(`erp-${subdomain}`)
  const inside = async (...cmd: string[]) => (await execIn(container, cmd)).stdout

  const repo = await git.repo('mounted')
  await repo.commit({ 'stock_extra/__manifest__.py': manifest('Stock Extra'), 'stock_extra/models.py': 'VERSION = 1\n' })
  const source = (await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main' })).json.addon_source
  t.equal(await inside('ls', '/mnt/extra-addons'), '', 'registering changes nothing the instance sees')
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  t.equal((await waitForSync(call, source.id)).state, 'synced')
  t.equal(await inside('ls', '/mnt/extra-addons'), 'stock_extra\n', 'one module folder, a direct child of the addons path; the checkout is hidden')
  t.equal(await inside('cat', '/mnt/extra-addons/stock_extra/models.py'), 'VERSION = 1\n', 'the relative links resolve inside the container')

  const second = await repo.commit({ 'stock_extra/models.py': 'VERSION = 2\n', 'mrp_extra/__manifest__.py': manifest('MRP Extra') })
  let release!: () => void
  const paused = new Promise<void>((resolve) => { git.beforeUploadPack = async () => { resolve(); await new Promise<void>((r) => { release = r }) } })
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  await paused
  t.equal(await inside('cat', '/mnt/extra-addons/stock_extra/models.py'), 'VERSION = 1\n', 'while the sync fetches, the instance still reads the old tree')
  release()
  git.beforeUploadPack = undefined
  t.match(await waitForSync(call, source.id), { state: 'synced', last_commit: second })
  t.equal(await inside('cat', '/mnt/extra-addons/stock_extra/models.py'), 'VERSION = 2\n', 'and then the new one')
  t.equal(await inside('ls', '/mnt/extra-addons'), 'mrp_extra\nstock_extra\n')

  t.equal((await call('DELETE', `/api/addon-sources/${source.id}`)).status, 200)
  t.equal(await inside('ls', '/mnt/extra-addons'), '', 'the checkout is gone from the instance\'s view')
  t.equal((await waitForState(app, admin.token, instanceId, ['running'], 5000)).state, 'running', 'the instance keeps running')
  t.equal((await container.inspect()).State.Running, true)
})
