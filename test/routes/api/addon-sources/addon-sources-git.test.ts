import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { signup } from '../../../support/accounts.ts'
import { api, buildWithAddons, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { recordInstance, instanceRow } from '../../../support/instance-rows.ts'

t.setTimeout(120_000)

t.test('register, sync from a real Git server over HTTPS, switch to a new commit atomically, delete', async (t) => {
  const git = await startGitServer(t)
  const { app, addonsOf } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const repo = await git.repo('acme-addons')
  const first = await repo.commit({
    'README.md': 'addons',
    'modules/sale_extra/__manifest__.py': manifest('Sale Extra', 'More on sales orders'),
    'modules/sale_extra/models.py': 'VERSION = 1\n',
    'modules/old_report/__manifest__.py': manifest('Old Report'),
    'modules/not_a_module/notes.txt': 'no manifest here'
  })
  const instanceId = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  const instanceBefore = await instanceRow(app, instanceId)
  const publicCatalog = await app.inject({ method: 'GET', url: '/api/modules' })
  t.equal(publicCatalog.statusCode, 200, publicCatalog.body)
  const catalogBefore = publicCatalog.json().modules.length

  const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', subpath: 'modules/' })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const source = created.json.addon_source
  t.match(source, { name: 'acme-addons', repository_url: repo.url, branch: 'main', subpath: 'modules', state: 'pending', last_commit: null, modules: [], credential: null })

  // Registering installs nothing: no request to the Git server, no files, no catalog rows, the instance untouched.
  t.same(git.requests, [], 'nothing fetched on registration')
  t.notOk(existsSync(addonsOf(admin.subdomain)), 'nothing written to the addons storage')
  t.same(await app.orm.em.fork().execute('SELECT technical_name FROM erp_modules WHERE tenant_id IS NOT NULL'), [])
  t.same(await instanceRow(app, instanceId), instanceBefore, 'the instance row is unchanged')

  const queued = await call('POST', `/api/addon-sources/${source.id}/sync`)
  t.equal(queued.status, 202)
  t.equal(queued.json.addon_source.state, 'syncing')
  const synced = await waitForSync(call, source.id)
  t.match(synced, { state: 'synced', last_commit: first, modules: ['old_report', 'sale_extra'], error: null })
  t.ok(synced.last_synced_at)
  t.ok(git.requests.some((line) => line === 'POST /acme-addons.git/git-upload-pack'), 'fetched over smart HTTP')

  const addons = addonsOf(admin.subdomain)
  t.equal(readFileSync(join(addons, 'sale_extra', 'models.py'), 'utf8'), 'VERSION = 1\n', 'the module folder is a direct child of the addons folder')
  t.notOk(existsSync(join(addons, 'not_a_module')), 'folders without a manifest are not linked')
  t.ok(readdirSync(addons).filter((name) => name.startsWith('.source-')).length === 2, 'one hidden checkout and its current link')

  // The tenant's catalog lists them as installable with their source; the public catalog and other tenants do not.
  const mine = await app.modules.list(app.orm.em.fork(), {}, admin.user.tenant_id)
  t.match(mine.filter((m) => m.addon_source_id !== null), [
    { technical_name: 'old_report', name: 'Old Report', addon_source_id: source.id, category: 'Custom addons' },
    { technical_name: 'sale_extra', name: 'Sale Extra', description: 'More on sales orders', addon_source_id: source.id }
  ])
  t.equal((await app.inject({ method: 'GET', url: '/api/modules' })).json().modules.length, catalogBefore, 'the public catalog is unchanged')
  const other = await signup(app)
  t.equal((await app.modules.list(app.orm.em.fork(), {}, other.user.tenant_id)).filter((m) => m.addon_source_id !== null).length, 0)

  // A new commit: changed, added and removed modules. While the sync runs, the module folder is always readable,
  // old or new, never missing or half-written.
  const second = await repo.commit({
    'modules/sale_extra/models.py': 'VERSION = 2\n',
    'modules/old_report': null,
    'modules/new_tool/__manifest__.py': manifest('New Tool')
  })
  const seen = new Set<string>()
  let reading = true
  let releaseFetch!: () => void
  const fetchPaused = new Promise<void>((resolve) => { git.beforeUploadPack = async () => { resolve(); await new Promise<void>((release) => { releaseFetch = release }) } })
  const reader = (async () => {
    while (reading) {
      try {
        seen.add(readFileSync(join(addons, 'sale_extra', 'models.py'), 'utf8'))
      } catch (error) {
        seen.add(`error: ${(error as NodeJS.ErrnoException).code}`)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  t.equal((await call('POST', `/api/addon-sources/${source.id}/sync`)).status, 202)
  await fetchPaused
  t.equal(readFileSync(join(addons, 'sale_extra', 'models.py'), 'utf8'), 'VERSION = 1\n', 'mid-fetch, the old tree is still served')
  t.equal((await call('POST', `/api/addon-sources/${source.id}/sync`)).json.addon_source.state, 'syncing', 'asking again while syncing queues nothing more')
  releaseFetch()
  git.beforeUploadPack = undefined
  const resynced = await waitForSync(call, source.id)
  reading = false
  await reader
  t.match(resynced, { state: 'synced', last_commit: second, modules: ['new_tool', 'sale_extra'] })
  t.not(resynced.last_commit, first)
  t.same([...seen].sort(), ['VERSION = 1\n', 'VERSION = 2\n'], 'every read saw the old file or the new one')
  t.equal(readFileSync(join(addons, 'sale_extra', 'models.py'), 'utf8'), 'VERSION = 2\n')
  t.notOk(existsSync(join(addons, 'old_report')), 'a module gone from the repository is unlinked')
  t.ok(existsSync(join(addons, 'new_tool', '__manifest__.py')))
  t.equal(readdirSync(addons).filter((name) => name.startsWith('.source-')).length, 2, 'the old checkout is removed after the switch')
  const names = (await app.modules.list(app.orm.em.fork(), {}, admin.user.tenant_id)).filter((m) => m.addon_source_id !== null).map((m) => m.technical_name)
  t.same(names, ['new_tool', 'sale_extra'], 'the catalog follows the repository')

  const activity = await app.orm.em.fork().execute<Array<{ type: string }>>(`SELECT type FROM activities WHERE target_type = 'addon_source' ORDER BY id`)
  t.same(activity.map((a) => a.type), ['addon_source.registered', 'addon_source.sync_requested', 'addon_source.synced', 'addon_source.sync_requested', 'addon_source.synced'])

  // Delete: the checkout and the links go, the catalog rows go; the instance is untouched.
  t.equal((await call('DELETE', `/api/addon-sources/${source.id}`)).status, 200)
  t.same(readdirSync(addons), [], 'nothing of the source is left in the addons folder')
  t.same(await app.orm.em.fork().execute('SELECT technical_name FROM erp_modules WHERE tenant_id IS NOT NULL'), [])
  t.equal((await call('GET', `/api/addon-sources/${source.id}`)).status, 404)
  t.same((await instanceRow(app, instanceId)).state, instanceBefore.state)
})

t.test('a private repository: the token is sent to the server, stored sealed, never returned', async (t) => {
  const git = await startGitServer(t)
  const { app } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const token = 'ghp_secretToken123'
  const repo = await git.repo('private', { token })
  const commit = await repo.commit({ 'one/__manifest__.py': manifest('One') })

  const without = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', name: 'no token' })
  t.equal((await call('POST', `/api/addon-sources/${without.json.addon_source.id}/sync`)).status, 202)
  const refused = await waitForSync(call, without.json.addon_source.id)
  t.equal(refused.state, 'failed')
  t.match(refused.error, /401|Authentication|credentials|could not read/i, refused.error)

  const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', token })
  t.equal(created.status, 201)
  t.equal(created.json.addon_source.credential, 'token')
  t.notMatch(JSON.stringify(created.json), token)
  const [row] = await app.orm.em.fork().execute<Array<{ sealed_credential: string }>>('SELECT sealed_credential FROM addon_sources WHERE id = ?', [created.json.addon_source.id])
  t.ok(row?.sealed_credential.startsWith('v1.'))
  t.notMatch(row?.sealed_credential, token, 'stored encrypted')
  await call('POST', `/api/addon-sources/${created.json.addon_source.id}/sync`)
  const synced = await waitForSync(call, created.json.addon_source.id)
  t.match(synced, { state: 'synced', last_commit: commit, modules: ['one'] })
  t.notMatch(JSON.stringify((await call('GET', '/api/addon-sources')).json), token)
})
