/**
 * An ssh:// source with a deploy key, synced from a real sshd through the app: the key is sealed
 * and never returned (REST or MCP), the server's key is pinned by the first sync and required by
 * the next ones, a refused key or a changed server key fails the sync with a clear error.
 */
import t from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signup } from '../../../support/accounts.ts'
import { api, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { startMcpFixture } from '../../../support/mcp.ts'
import { keyPair, startSshServer } from '../../../support/ssh-server.ts'
import { assertToolSuccess, useTool } from '../../../mcp/tool-helpers.ts'

t.setTimeout(120_000)

t.test('register an ssh source with a deploy key, sync it, pin the host key, refuse a changed one', async (t) => {
  const sshd = await startSshServer(t)
  const addonsRoot = mkdtempSync(join(tmpdir(), 'erp-ssh-addons-'))
  t.teardown(() => rmSync(addonsRoot, { recursive: true, force: true }))
  const { app, connectAgent } = await startMcpFixture(t, { INSTANCE_BACKENDS: 'docker', ADDONS_ROOT: addonsRoot, ADDON_SOURCE_ALLOWED_HOSTS: '127.0.0.1', ADDON_SOURCE_SYNC_RETRIES: 0 })
  const admin = await signup(app)
  const call = api(app, admin.token)
  const deploy = await keyPair(addonsRoot, 'deploy')
  await sshd.authorize(deploy.publicKey)
  const repo = await sshd.repo('team-addons')
  const commit = await repo.commit({ 'sale_ssh/__manifest__.py': manifest('Sale over ssh'), 'sale_ssh/models.py': 'X = 1\n' })
  const keyBody = deploy.privateKey.split('\n')[1] ?? ''

  const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', deploy_key: deploy.privateKey })
  t.equal(created.status, 201, JSON.stringify(created.json))
  const id = created.json.addon_source.id as number
  t.match(created.json.addon_source, { repository_url: repo.url, credential: 'deploy_key', ssh_host_key: null, state: 'pending' })
  const [row] = await app.orm.em.fork().execute<Array<{ sealed_credential: string }>>('SELECT sealed_credential FROM addon_sources WHERE id = ?', [id])
  t.notMatch(row?.sealed_credential, keyBody, 'the key is stored sealed')

  t.equal((await call('POST', `/api/addon-sources/${id}/sync`)).status, 202)
  const synced = await waitForSync(call, id)
  t.match(synced, { state: 'synced', last_commit: commit, modules: ['sale_ssh'], error: null, ssh_host_key: sshd.hostKey }, 'the first sync pins the server\'s key')
  t.equal(readFileSync(join(addonsRoot, admin.subdomain, 'addons', 'sale_ssh', 'models.py'), 'utf8'), 'X = 1\n')

  // The key is never returned: not by the routes, not by the MCP tools.
  const { accessToken } = await connectAgent(admin)
  const listed = assertToolSuccess(t, await useTool(app, accessToken, 'list_addon_sources', {}), 'list_addon_sources')
  t.match(listed.addon_sources, [{ id, credential: 'deploy_key', ssh_host_key: sshd.hostKey }])
  const modules = assertToolSuccess(t, await useTool(app, accessToken, 'list_modules', { q: 'sale_ssh' }), 'list_modules')
  for (const answer of [created.json, (await call('GET', '/api/addon-sources')).json, (await call('GET', `/api/addon-sources/${id}`)).json, listed, modules]) {
    t.notMatch(JSON.stringify(answer), keyBody, 'no part of the private key is in an answer')
    t.notMatch(JSON.stringify(answer), 'PRIVATE KEY')
  }

  // The server shows another key (a rotated server, or an impostor at that address): the sync fails and changes nothing.
  const pinned = sshd.hostKey
  const second = await repo.commit({ 'sale_ssh/__manifest__.py': manifest('Sale over ssh'), 'sale_ssh/models.py': 'X = 2\n' })
  const replaced = await sshd.replaceHostKey()
  await call('POST', `/api/addon-sources/${id}/sync`)
  const refused = await waitForSync(call, id)
  t.match(refused, { state: 'failed', last_commit: commit, ssh_host_key: pinned, error: /^the ssh host key of 127\.0\.0\.1 is not the one pinned for this source/ })
  t.equal(readFileSync(join(addonsRoot, admin.subdomain, 'addons', 'sale_ssh', 'models.py'), 'utf8'), 'X = 1\n', 'the old tree stays')

  // The admin accepts the new key by giving it (as known_hosts writes it); null would pin afresh.
  const accepted = await call('PUT', `/api/addon-sources/${id}`, { ssh_host_key: `[127.0.0.1]:${sshd.port} ${replaced} comment` })
  t.equal(accepted.status, 200, JSON.stringify(accepted.json))
  t.equal(accepted.json.addon_source.ssh_host_key, replaced)
  await call('POST', `/api/addon-sources/${id}/sync`)
  t.match(await waitForSync(call, id), { state: 'synced', last_commit: second, ssh_host_key: replaced })
  t.equal((await call('PUT', `/api/addon-sources/${id}`, { ssh_host_key: null })).json.addon_source.ssh_host_key, null, 'forgotten: the next sync pins again')

  const activity = await app.orm.em.fork().execute<Array<{ type: string }>>(`SELECT type FROM activities WHERE target_type = 'addon_source' AND target_id = ? ORDER BY id`, [String(id)])
  t.same(activity.map((a) => a.type), ['addon_source.registered', 'addon_source.sync_requested', 'addon_source.synced', 'addon_source.sync_requested',
    'addon_source.sync_failed', 'addon_source.updated', 'addon_source.sync_requested', 'addon_source.synced', 'addon_source.updated'])
})

t.test('a deploy key the server refuses fails the sync clearly, at once; a host key is refused where it cannot apply', async (t) => {
  const sshd = await startSshServer(t)
  const addonsRoot = mkdtempSync(join(tmpdir(), 'erp-ssh-addons-'))
  t.teardown(() => rmSync(addonsRoot, { recursive: true, force: true }))
  // Retries allowed: a refused key is final anyway, another attempt would only repeat it.
  const { app } = await startMcpFixture(t, { INSTANCE_BACKENDS: 'docker', ADDONS_ROOT: addonsRoot, ADDON_SOURCE_ALLOWED_HOSTS: '127.0.0.1', ADDON_SOURCE_SYNC_RETRIES: 3 })
  const admin = await signup(app)
  const call = api(app, admin.token)
  const stranger = await keyPair(addonsRoot, 'stranger')
  const repo = await sshd.repo('locked')
  await repo.commit({ 'locked_mod/__manifest__.py': manifest('Locked') })

  const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', deploy_key: stranger.privateKey })
  await call('POST', `/api/addon-sources/${created.json.addon_source.id}/sync`)
  const failed = await waitForSync(call, created.json.addon_source.id)
  t.match(failed, { state: 'failed', last_commit: null, modules: [], error: /^the server 127\.0\.0\.1 refused the deploy key \(.*Permission denied \(publickey\)/ })
  t.notOk(existsSync(join(addonsRoot, admin.subdomain, 'addons', 'locked_mod')))
  const jobs = await app.orm.em.fork().execute<Array<{ state: string, retry_count: number }>>(`SELECT state, retry_count FROM pgboss.job WHERE name = 'addon-source-sync'`)
  t.same(jobs, [{ state: 'completed', retry_count: 0 }], 'one attempt, ended: no retry was scheduled')

  const https = await call('POST', '/api/addon-sources', { repository_url: 'https://127.0.0.1/x.git', branch: 'main', ssh_host_key: sshd.hostKey })
  t.match(https, { status: 400, json: { error: { code: 'ADDON_SOURCE_INVALID', details: { field: 'ssh_host_key' } } } })
  const garbled = await call('PUT', `/api/addon-sources/${created.json.addon_source.id}`, { ssh_host_key: 'ssh-ed25519 not-base64!' })
  t.match(garbled, { status: 400, json: { error: { code: 'ADDON_SOURCE_INVALID', details: { field: 'ssh_host_key' } } } })
})
