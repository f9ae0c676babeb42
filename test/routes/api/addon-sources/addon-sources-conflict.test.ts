/**
 * Two sources of one company that provide the same module: the second sync is refused with an
 * error naming the source that has it, and nothing of the first changes. Another company's
 * source of the same module name is no conflict.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { signup } from '../../../support/accounts.ts'
import { api, buildWithAddons, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { startGitServer } from '../../../support/git-server.ts'

t.setTimeout(120_000)

t.test('a second source providing a module the company already has fails its sync, naming the first', async (t) => {
  const git = await startGitServer(t)
  const { app, addonsOf } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const first = await git.repo('first-addons')
  await first.commit({ 'shared_mod/__manifest__.py': manifest('Shared A'), 'shared_mod/v.py': 'A\n' })
  const second = await git.repo('second-addons')
  await second.commit({ 'shared_mod/__manifest__.py': manifest('Shared B'), 'shared_mod/v.py': 'B\n', 'own_mod/__manifest__.py': manifest('Own') })

  const a = (await call('POST', '/api/addon-sources', { repository_url: first.url, branch: 'main', name: 'Team A' })).json.addon_source
  const b = (await call('POST', '/api/addon-sources', { repository_url: second.url, branch: 'main', name: 'Team B' })).json.addon_source
  await call('POST', `/api/addon-sources/${a.id}/sync`)
  t.match(await waitForSync(call, a.id), { state: 'synced', modules: ['shared_mod'] })

  await call('POST', `/api/addon-sources/${b.id}/sync`)
  const refused = await waitForSync(call, b.id)
  t.match(refused, { state: 'failed', error: 'the module shared_mod is already provided by the addon source Team A', modules: [], last_commit: null })
  const rows = await app.orm.em.fork().execute('SELECT technical_name, name, addon_source_id FROM erp_modules WHERE tenant_id = ? ORDER BY technical_name', [admin.user.tenant_id])
  t.same(rows.map((r) => ({ ...r, addon_source_id: Number(r.addon_source_id) })), [{ technical_name: 'shared_mod', name: 'Shared A', addon_source_id: a.id }], 'the catalog keeps the first source\'s module')
  t.equal(readFileSync(join(addonsOf(admin.subdomain), 'shared_mod', 'v.py'), 'utf8'), 'A\n', 'the files are the first source\'s')

  // Once the first source is gone, the second one syncs.
  t.equal((await call('DELETE', `/api/addon-sources/${a.id}`)).status, 200)
  await call('POST', `/api/addon-sources/${b.id}/sync`)
  t.match(await waitForSync(call, b.id), { state: 'synced', modules: ['own_mod', 'shared_mod'], error: null })
  t.equal(readFileSync(join(addonsOf(admin.subdomain), 'shared_mod', 'v.py'), 'utf8'), 'B\n')

  // Another company's source of the same module name is its own business.
  const other = await signup(app)
  const callOther = api(app, other.token)
  const c = (await callOther('POST', '/api/addon-sources', { repository_url: first.url, branch: 'main', name: 'Team A' })).json.addon_source
  await callOther('POST', `/api/addon-sources/${c.id}/sync`)
  t.match(await waitForSync(callOther, c.id), { state: 'synced', modules: ['shared_mod'] })
})
