import t from 'tap'
import { existsSync, readdirSync } from 'node:fs'
import { addMember, signup } from '../../../support/accounts.ts'
import { api, buildWithAddons, manifest, waitForSync } from '../../../support/addon-sources.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { createAddonSourcesService } from '../../../../plugins/app/addon-sources/addon-sources.service.ts'
import { createCredentialSealer } from '../../../../plugins/app/addon-sources/credential-seal.ts'
import { scopedEntityManager } from '../../../../database/tenancy.ts'
import type { Actor } from '../../../../lib/actor.ts'

t.setTimeout(120_000)

async function sourceCount (app: Awaited<ReturnType<typeof buildWithAddons>>['app']): Promise<number> {
  const [row] = await app.orm.em.fork().execute<Array<{ n: string }>>('SELECT count(*) AS n FROM addon_sources')
  return Number(row?.n)
}

t.test('refused at registration: other schemes, loopback, metadata and private addresses, option injection, path escapes', async (t) => {
  const { app } = await buildWithAddons(t, { ADDON_SOURCE_ALLOWED_HOSTS: '' })
  const admin = await signup(app)
  const call = api(app, admin.token)
  const refused = async (body: Record<string, unknown>, code: string, field: string, message: RegExp) => {
    const { status, json } = await call('POST', '/api/addon-sources', { branch: 'main', ...body })
    t.equal(status, 400, JSON.stringify(body))
    t.match(json, { success: false, error: { code, details: { field }, message } }, JSON.stringify(body))
  }
  await refused({ repository_url: 'file:///etc/passwd' }, 'ADDON_SOURCE_INVALID', 'repository_url', /scheme must be https or ssh/)
  await refused({ repository_url: 'http://127.0.0.1/repo.git' }, 'ADDON_SOURCE_INVALID', 'repository_url', /scheme must be https or ssh/)
  await refused({ repository_url: 'git://example.com/repo.git' }, 'ADDON_SOURCE_INVALID', 'repository_url', /scheme/)
  await refused({ repository_url: 'https://127.0.0.1/repo.git' }, 'ADDON_SOURCE_ADDRESS_REFUSED', 'repository_url', /loopback/)
  await refused({ repository_url: 'https://localhost/repo.git' }, 'ADDON_SOURCE_ADDRESS_REFUSED', 'repository_url', /loopback/)
  await refused({ repository_url: 'https://169.254.169.254/latest/meta-data' }, 'ADDON_SOURCE_ADDRESS_REFUSED', 'repository_url', /link-local/)
  await refused({ repository_url: 'https://[::1]/repo.git' }, 'ADDON_SOURCE_ADDRESS_REFUSED', 'repository_url', /loopback/)
  await refused({ repository_url: 'https://[fd00:ec2::254]/repo.git' }, 'ADDON_SOURCE_ADDRESS_REFUSED', 'repository_url', /unique local/)
  await refused({ repository_url: 'https://user:pw@example.com/repo.git' }, 'ADDON_SOURCE_INVALID', 'repository_url', /user name or password/)
  await refused({ repository_url: 'ssh://git@example.com/repo.git' }, 'ADDON_SOURCE_INVALID', 'repository_url', /deploy key/)
  for (const branch of ['--upload-pack=touch /tmp/pwned', '-b', 'main/../../etc', '/etc/passwd', 'a..b', 'x@{1}', 'with space', 'main.lock', '.hidden']) {
    await refused({ repository_url: 'https://127.0.0.1/r.git', branch }, 'ADDON_SOURCE_INVALID', 'branch', /branch name/)
  }
  for (const subpath of ['../outside', 'modules/../../etc', '/etc', '--upload-pack=x', 'a//b', './a']) {
    await refused({ repository_url: 'https://127.0.0.1/r.git', subpath }, 'ADDON_SOURCE_INVALID', 'subpath', /subpath/)
  }
  t.equal(await sourceCount(app), 0, 'nothing was recorded')
})

t.test('a host name that resolves to a private address is refused, at registration and at sync time', async (t) => {
  const { app } = await buildWithAddons(t, { ADDON_SOURCE_ALLOWED_HOSTS: '' })
  const admin = await signup(app)
  const actor: Actor = { kind: 'user', userId: admin.user.id, tenantId: admin.user.tenant_id, role: 'admin', email: admin.email, name: 'Admin', sessionId: 's' }
  const answers = new Map([['git.example.test', '10.0.0.1']])
  const resolved: string[] = []
  const service = createAddonSourcesService({
    jobs: { send: async () => null, wake: () => {} },
    activity: app.activity,
    sealer: createCredentialSealer('k'.repeat(43)),
    policy: { resolve: async (host) => { resolved.push(host); return [{ address: answers.get(host) ?? '93.184.215.14', family: 4 }] } },
    storage: undefined,
    syncStaleMs: 60_000
  })
  const em = scopedEntityManager(app.orm.em, admin.user.tenant_id)
  await t.rejects(service.create({ em, actor }, { repository_url: 'https://git.example.test/acme/addons.git', branch: 'main' }),
    { code: 'ADDON_SOURCE_ADDRESS_REFUSED', message: /git\.example\.test is at 10\.0\.0\.1, a private/ })
  t.same(resolved, ['git.example.test'], 'the guard resolved the name itself')
  // DNS rebinding: public at registration, private by the time of the sync.
  answers.set('rebind.example.test', '93.184.215.14')
  const source = await service.create({ em, actor }, { repository_url: 'https://rebind.example.test/acme/addons.git', branch: 'main' })
  t.equal(source.state, 'pending')
  answers.set('rebind.example.test', '10.0.0.1')
  const { sourceAddress } = await import('../../../../plugins/app/addon-sources/source-address.ts')
  await t.rejects(sourceAddress(new URL(source.repository_url), { resolve: async (host) => [{ address: answers.get(host) ?? '', family: 4 }] }),
    { code: 'ADDON_SOURCE_ADDRESS_REFUSED' }, 'the sync checks again and refuses')
})

t.test('caps: a repository over the size or file cap fails its sync with a clear error and writes nothing', async (t) => {
  const git = await startGitServer(t)
  const { app, addonsOf } = await buildWithAddons(t, { ADDON_SOURCE_MAX_BYTES: 64 * 1024, ADDON_SOURCE_MAX_FILES: 20 })
  const admin = await signup(app)
  const call = api(app, admin.token)
  // A clone bomb in small: 1 MB of zeros compresses to a tiny pack, but would check out far over the cap.
  const bomb = await git.repo('bomb')
  await bomb.commit({ 'm/__manifest__.py': manifest('M'), 'm/zeros.bin': Buffer.alloc(1024 * 1024) })
  const many = await git.repo('many')
  await many.commit(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m/f${i}.txt`, `${i}`])))
  const random = await git.repo('random')
  await random.commit({ 'm/__manifest__.py': manifest('M'), 'm/noise.bin': (await import('node:crypto')).randomBytes(256 * 1024) })
  for (const [repo, message] of [[bomb, /larger than the 65536-byte limit/], [many, /more than 20 files/], [random, /larger than the 65536-byte limit/]] as const) {
    const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', name: repo.url.split('/').pop() })
    await call('POST', `/api/addon-sources/${created.json.addon_source.id}/sync`)
    const done = await waitForSync(call, created.json.addon_source.id)
    t.equal(done.state, 'failed', repo.url)
    t.match(done.error, message, done.error)
    t.same(done.modules, [])
  }
  const addons = addonsOf(admin.subdomain)
  t.same(existsSync(addons) ? readdirSync(addons) : [], [], 'no checkout, link or staging folder is left')
})

t.test('a missing branch fails the sync and says so', async (t) => {
  const git = await startGitServer(t)
  const { app } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const repo = await git.repo('branches')
  await repo.commit({ 'a/__manifest__.py': manifest('A') })
  const created = await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'release/17.0' })
  await call('POST', `/api/addon-sources/${created.json.addon_source.id}/sync`)
  t.match(await waitForSync(call, created.json.addon_source.id), { state: 'failed', error: /release\/17\.0 does not exist/ })
})

t.test('tenancy and roles: another company\'s source is 404, a member cannot change sources (403)', async (t) => {
  const git = await startGitServer(t)
  const { app } = await buildWithAddons(t)
  const owner = await signup(app)
  const repo = await git.repo('owned')
  await repo.commit({ 'a/__manifest__.py': manifest('A') })
  const created = await api(app, owner.token)('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main' })
  const id = created.json.addon_source.id as number
  const before = (await api(app, owner.token)('GET', `/api/addon-sources/${id}`)).json

  const stranger = api(app, (await signup(app)).token)
  t.same((await stranger('GET', '/api/addon-sources')).json.addon_sources, [])
  for (const [method, url, body] of [['GET', `/api/addon-sources/${id}`], ['PUT', `/api/addon-sources/${id}`, { branch: 'dev' }],
    ['DELETE', `/api/addon-sources/${id}`], ['POST', `/api/addon-sources/${id}/sync`]] as const) {
    const { status, json } = await stranger(method, url, body)
    t.equal(status, 404, `${method} ${url}`)
    t.equal(json.error.code, 'ADDON_SOURCE_NOT_FOUND')
  }

  const member = api(app, (await addMember(app, owner.user.tenant_id)).token)
  t.equal((await member('GET', `/api/addon-sources/${id}`)).status, 200, 'members read')
  for (const [method, url, body] of [['POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', name: 'x' }],
    ['PUT', `/api/addon-sources/${id}`, { branch: 'dev' }], ['DELETE', `/api/addon-sources/${id}`], ['POST', `/api/addon-sources/${id}/sync`]] as const) {
    const { status, json } = await member(method, url, body)
    t.equal(status, 403, `${method} ${url}`)
    t.equal(json.error.code, 'FORBIDDEN')
  }
  t.same((await api(app, owner.token)('GET', `/api/addon-sources/${id}`)).json, before, 'nothing changed')
  t.same(git.requests, [], 'nothing was fetched')

  // The admin's update: a new branch needs a new sync; a taken name is a 409.
  const owned = api(app, owner.token)
  t.match((await owned('PUT', `/api/addon-sources/${id}`, { branch: 'dev', name: 'renamed' })).json.addon_source, { branch: 'dev', name: 'renamed', state: 'pending' })
  await owned('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main', name: 'second' })
  t.match(await owned('PUT', `/api/addon-sources/${id}`, { name: 'second' }), { status: 409, json: { error: { code: 'ADDON_SOURCE_EXISTS' } } })
  t.match(await owned('PUT', `/api/addon-sources/${id}`, { branch: '--upload-pack=x' }), { status: 400, json: { error: { code: 'ADDON_SOURCE_INVALID' } } })
})

t.test('ssh sources need a deploy key, which is stored sealed and never returned; https sources take a token only', async (t) => {
  const { app } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${Buffer.from('k'.repeat(300)).toString('base64').replace(/(.{70})/g, '$1\n')}\n-----END OPENSSH PRIVATE KEY-----\n`
  const created = await call('POST', '/api/addon-sources', { repository_url: 'ssh://git@localhost/acme/addons.git', branch: 'main', deploy_key: key })
  t.equal(created.status, 201, JSON.stringify(created.json))
  t.match(created.json.addon_source, { repository_url: 'ssh://git@localhost/acme/addons.git', credential: 'deploy_key' })
  t.notMatch(JSON.stringify(created.json), 'OPENSSH')
  const [row] = await app.orm.em.fork().execute<Array<{ sealed_credential: string }>>('SELECT sealed_credential FROM addon_sources WHERE id = ?', [created.json.addon_source.id])
  t.notMatch(row?.sealed_credential, 'OPENSSH', 'stored encrypted')
  for (const [body, field] of [
    [{ repository_url: 'ssh://git@localhost/acme/other.git', token: 'abc' }, 'repository_url'],
    [{ repository_url: 'https://localhost/acme/other.git', deploy_key: key }, 'deploy_key'],
    [{ repository_url: 'ssh://git@localhost/acme/other.git', deploy_key: 'not a key' }, 'deploy_key'],
    [{ repository_url: 'https://localhost/acme/other.git', token: 'has space' }, 'token'],
    [{ repository_url: 'https://localhost/acme/other.git', token: 'a', deploy_key: key }, 'token']
  ] as const) {
    t.match(await call('POST', '/api/addon-sources', { branch: 'main', name: 'other', ...body }), { status: 400, json: { error: { code: 'ADDON_SOURCE_INVALID', details: { field } } } }, JSON.stringify(body).slice(0, 80))
  }
})

t.test('a source left syncing by a lost job can be synced again', async (t) => {
  const git = await startGitServer(t)
  const { app } = await buildWithAddons(t)
  const admin = await signup(app)
  const call = api(app, admin.token)
  const repo = await git.repo('lost')
  const commit = await repo.commit({ 'a/__manifest__.py': manifest('A') })
  const id = (await call('POST', '/api/addon-sources', { repository_url: repo.url, branch: 'main' })).json.addon_source.id
  // As a crash on the job's last attempt leaves it: syncing, with no job, for longer than a sync may take.
  await app.sql({ text: "UPDATE addon_sources SET state = 'syncing', updated_at = now() - interval '1 day' WHERE id = $1", values: [id] })
  t.equal((await call('POST', `/api/addon-sources/${id}/sync`)).status, 202)
  t.match(await waitForSync(call, id), { state: 'synced', last_commit: commit })
  await app.sql({ text: "UPDATE addon_sources SET state = 'syncing', updated_at = now() WHERE id = $1", values: [id] })
  t.match(await call('DELETE', `/api/addon-sources/${id}`), { status: 409, json: { error: { code: 'ADDON_SOURCE_BUSY' } } }, 'a sync under way is left alone')
})
