/**
 * Deleting a source whose module is installed on an instance: refused with 409
 * ADDON_SOURCE_IN_USE naming the instances (and their modules), changing nothing; once
 * nothing of it is installed anywhere, the delete goes through (never a 500 from the
 * instance_modules foreign key). Likewise a sync of a commit that drops an installed module
 * fails in words, its files and catalog untouched. On real PostgreSQL, with a real Git server.
 */
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { signup } from '../../../support/accounts.ts'
import { api, buildWithAddons, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { recordInstance } from '../../../support/instance-rows.ts'

t.setTimeout(120_000)

t.test('a source with an installed module: 409 naming the instances, nothing changed; deleted once nothing is installed', async (t) => {
  const git = await startGitServer(t)
  const { app, addonsOf } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const tenant = admin.user.tenant_id as string
  const repo = await git.repo('in-use-addons')
  await repo.commit({ 'sale_extra/__manifest__.py': manifest('Sale Extra'), 'report_plus/__manifest__.py': manifest('Report Plus') })
  const source = (await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', name: 'Team addons' })).json.addon_source
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  t.match(await waitForSync(call, source.id), { state: 'synced', modules: ['report_plus', 'sale_extra'] })

  const sql = app.orm.em.fork()
  const moduleId = async (name: string) => Number((await sql.execute('SELECT id FROM erp_modules WHERE tenant_id = ? AND technical_name = ?', [tenant, name]))[0]!.id)
  const assign = async (instanceId: number, module: string, state: string) => sql.execute(
    'INSERT INTO instance_modules (tenant_id, instance_id, module_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, now(), now())',
    [tenant, instanceId, await moduleId(module), state])
  const sales = await recordInstance(app, tenant, { name: 'Sales', state: 'running' })
  const books = await recordInstance(app, tenant, { name: 'Books', state: 'stopped' })
  const tried = await recordInstance(app, tenant, { name: 'Tried', state: 'running' })
  const gone = await recordInstance(app, tenant, { name: 'Gone', state: 'deleted' })
  await assign(sales, 'sale_extra', 'installed')
  await assign(sales, 'report_plus', 'installed')
  await assign(books, 'report_plus', 'queued')
  await assign(tried, 'sale_extra', 'failed')
  await assign(gone, 'sale_extra', 'installed')

  const snapshot = async () => ({
    modules: await sql.execute('SELECT technical_name FROM erp_modules WHERE tenant_id = ? ORDER BY technical_name', [tenant]),
    installs: await sql.execute('SELECT instance_id, module_id, state FROM instance_modules WHERE tenant_id = ? ORDER BY id', [tenant]),
    sources: await sql.execute('SELECT id, state FROM addon_sources WHERE tenant_id = ?', [tenant])
  })
  const before = await snapshot()

  const refused = await call('DELETE', `/api/addon-sources/${source.id}`)
  t.equal(refused.status, 409, JSON.stringify(refused.json))
  t.equal(refused.json.error.code, 'ADDON_SOURCE_IN_USE')
  t.same(refused.json.error.details, {
    instances: [
      { id: sales, name: 'Sales', modules: ['report_plus', 'sale_extra'] },
      { id: books, name: 'Books', modules: ['report_plus'] }
    ]
  }, 'the instances where its modules are installed or queued, by id and name; not a failed install, not a deleted instance')
  t.match(refused.json.error.message, /Team addons .* installed on 2 instances: Sales \(report_plus, sale_extra\); Books \(report_plus\)/)
  t.same(await snapshot(), before, 'nothing changed: the source, its catalog entries and every install row')
  t.ok(existsSync(join(addonsOf(admin.subdomain), 'sale_extra')), 'its code stays in the addons storage')
  t.equal((await call('GET', `/api/addon-sources/${source.id}`)).status, 200)

  // Being uninstalled, or an uninstall that failed (installed_at still set): the module is still there.
  await sql.execute("UPDATE instance_modules SET state = 'uninstalled' WHERE instance_id = ?", [books])
  for (const [state, installedAt] of [['uninstalling', null], ['failed', new Date()]] as const) {
    await sql.execute('UPDATE instance_modules SET state = ?, installed_at = ? WHERE instance_id = ?', [state, installedAt, sales])
    const held = await call('DELETE', `/api/addon-sources/${source.id}`)
    t.equal(held.status, 409, `${state}: ${JSON.stringify(held.json)}`)
    t.same(held.json.error.details, { instances: [{ id: sales, name: 'Sales', modules: ['report_plus', 'sale_extra'] }] }, `${state}: still on Sales`)
  }

  await sql.execute("UPDATE instance_modules SET state = 'uninstalled' WHERE instance_id IN (?, ?)", [sales, books])
  const deleted = await call('DELETE', `/api/addon-sources/${source.id}`)
  t.equal(deleted.status, 200, JSON.stringify(deleted.json))
  t.equal((await call('GET', `/api/addon-sources/${source.id}`)).status, 404)
  t.same(await sql.execute('SELECT technical_name FROM erp_modules WHERE addon_source_id = ?', [source.id]), [], 'its catalog entries went')
  t.same(await sql.execute('SELECT id FROM instance_modules WHERE tenant_id = ?', [tenant]), [], 'and the install rows that named them')
  t.notOk(existsSync(join(addonsOf(admin.subdomain), 'sale_extra')), 'and its code')
})

t.test('a commit that drops an installed module: the sync fails naming the instance, nothing switched; once uninstalled, it syncs', async (t) => {
  const git = await startGitServer(t)
  const { app, addonsOf } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const tenant = admin.user.tenant_id as string
  const repo = await git.repo('dropping-addons')
  const first = await repo.commit({ 'sale_extra/__manifest__.py': manifest('Sale Extra'), 'report_plus/__manifest__.py': manifest('Report Plus'), 'keep_me/__manifest__.py': manifest('Keep') })
  const source = (await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main' })).json.addon_source
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  t.match(await waitForSync(call, source.id), { state: 'synced', last_commit: first })

  const sql = app.orm.em.fork()
  const moduleId = async (name: string) => Number((await sql.execute('SELECT id FROM erp_modules WHERE tenant_id = ? AND technical_name = ?', [tenant, name]))[0]!.id)
  const assign = async (instanceId: number, module: string, state: string) => sql.execute(
    'INSERT INTO instance_modules (tenant_id, instance_id, module_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, now(), now())',
    [tenant, instanceId, await moduleId(module), state])
  const sales = await recordInstance(app, tenant, { name: 'Sales', state: 'running' })
  await assign(sales, 'sale_extra', 'installed')
  await assign(sales, 'report_plus', 'failed')

  await repo.commit({ sale_extra: null, report_plus: null })
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  const refused = await waitForSync(call, source.id)
  t.match(refused, { state: 'failed', last_commit: first, error: 'the module sale_extra is no longer in the repository but is installed on Sales' })
  t.ok(existsSync(join(addonsOf(admin.subdomain), 'sale_extra', '__manifest__.py')), 'the instance\'s module code stays in place')
  t.same((await sql.execute('SELECT technical_name FROM erp_modules WHERE addon_source_id = ? ORDER BY technical_name', [source.id])).map((r) => r.technical_name),
    ['keep_me', 'report_plus', 'sale_extra'], 'the catalog is unchanged')

  await sql.execute("UPDATE instance_modules SET state = 'uninstalled' WHERE instance_id = ?", [sales])
  await call('POST', `/api/addon-sources/${source.id}/sync`)
  t.match(await waitForSync(call, source.id), { state: 'synced', modules: ['keep_me'], error: null })
  t.same(await sql.execute('SELECT id FROM instance_modules WHERE tenant_id = ?', [tenant]), [], 'the install rows of the dropped modules went with them')
  t.notOk(existsSync(join(addonsOf(admin.subdomain), 'sale_extra')))
})
