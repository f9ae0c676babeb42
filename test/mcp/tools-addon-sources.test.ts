import t from 'tap'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addMember, signup } from '../support/accounts.ts'
import { manifest } from '../support/addon-sources.ts'
import { startGitServer } from '../support/git-server.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { assertToolError, assertToolSuccess, tenantSnapshot, useTool } from './tool-helpers.ts'

t.setTimeout(120_000)
const addonsRoot = mkdtempSync(join(tmpdir(), 'erp-mcp-addons-'))
t.teardown(() => rmSync(addonsRoot, { recursive: true, force: true }))
const git = await startGitServer(t)
const { app, connectAgent } = await startMcpFixture(t, { INSTANCE_BACKENDS: 'docker', ADDONS_ROOT: addonsRoot, ADDON_SOURCE_ALLOWED_HOSTS: 'localhost', ADDON_SOURCE_SYNC_RETRIES: 0 })
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Addons agent')

t.test('an agent registers a source, syncs it and finds its modules in the catalog', async (t) => {
  const repo = await git.repo('agent-addons')
  const commit = await repo.commit({ 'helpdesk_plus/__manifest__.py': manifest('Helpdesk Plus', 'SLA dashboards') })
  const added = assertToolSuccess(t, await useTool(app, token, 'add_addon_source', { repository_url: repo.url, branch: 'main', token: 'tok_abc123' }), 'add_addon_source')
  t.match(added.addon_source, { name: 'agent-addons', state: 'pending', credential: 'token' })
  t.notMatch(JSON.stringify(added), 'tok_abc123', 'the token is not echoed')
  const id = added.addon_source.id as number
  t.same(readdirSync(addonsRoot), [], 'registering wrote nothing')

  t.equal(assertToolSuccess(t, await useTool(app, token, 'sync_addon_source', { addon_source_id: id }), 'sync_addon_source').addon_source.state, 'syncing')
  let source: Record<string, any>
  do {
    source = assertToolSuccess(t, await useTool(app, token, 'list_addon_sources', {}), 'list_addon_sources').addon_sources.find((s: { id: number }) => s.id === id)
    if (source.state === 'syncing') await new Promise((resolve) => setTimeout(resolve, 50))
  } while (source.state === 'syncing')
  t.match(source, { state: 'synced', last_commit: commit, modules: ['helpdesk_plus'] })
  const modules = assertToolSuccess(t, await useTool(app, token, 'list_modules', { q: 'helpdesk' }), 'list_modules').modules
  t.match(modules.find((m: { technical_name: string }) => m.technical_name === 'helpdesk_plus'), { name: 'Helpdesk Plus', addon_source_id: id })

  const rest = await app.inject({ method: 'GET', url: '/api/addon-sources', headers: { authorization: `Bearer ${admin.token}` } })
  t.same(rest.json().addon_sources, [source], 'the same view as the REST route')
  const activity = await app.sql<{ actor_kind: string, type: string }>({ text: "SELECT actor_kind, type FROM activities WHERE tenant_id = $1 AND target_type = 'addon_source' ORDER BY id", values: [admin.user.tenant_id] })
  t.match(activity, [{ actor_kind: 'agent', type: 'addon_source.registered' }, { actor_kind: 'agent', type: 'addon_source.sync_requested' }, { actor_kind: 'system', type: 'addon_source.synced' }])

  // Another company: the source is not found, and its catalog does not show the module.
  const other = await signup(app)
  const otherAgent = await connectAgent(other, 'Other agent')
  const memberAgent = await connectAgent(await addMember(app, admin.user.tenant_id), 'Member agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, otherAgent.accessToken, 'sync_addon_source', { addon_source_id: id }), 'ADDON_SOURCE_NOT_FOUND')
  t.same(assertToolSuccess(t, await useTool(app, otherAgent.accessToken, 'list_addon_sources', {}), 'list').addon_sources, [])
  t.notOk(assertToolSuccess(t, await useTool(app, otherAgent.accessToken, 'list_modules', {}), 'list_modules').modules.some((m: { technical_name: string }) => m.technical_name === 'helpdesk_plus'))

  // A member's agent reads but cannot register or sync.
  t.equal(assertToolSuccess(t, await useTool(app, memberAgent.accessToken, 'list_addon_sources', {}), 'member list').addon_sources.length, 1)
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'add_addon_source', { repository_url: repo.url, branch: 'main', name: 'x' }), 'FORBIDDEN')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'sync_addon_source', { addon_source_id: id }), 'FORBIDDEN')
  assertToolError(t, await useTool(app, token, 'add_addon_source', { repository_url: repo.url, branch: '--upload-pack=touch /tmp/x' }), 'ADDON_SOURCE_INVALID')
  assertToolError(t, await useTool(app, token, 'add_addon_source', { repository_url: 'https://169.254.169.254/x.git', branch: 'main' }), 'ADDON_SOURCE_ADDRESS_REFUSED')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('an agent registers an ssh:// source with a deploy key and a host key; neither key material is echoed', async (t) => {
  const privateKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n'
  const hostKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKvDz9mV0iGmY1Gq1CEx2J0JpT1B3CgUQ0dQ7QCQpTn7'
  const added = assertToolSuccess(t, await useTool(app, token, 'add_addon_source', {
    repository_url: 'ssh://git@localhost:2222/acme/private-addons.git', branch: 'main', name: 'private-addons', deploy_key: privateKey, ssh_host_key: hostKey
  }), 'add_addon_source')
  t.match(added.addon_source, { name: 'private-addons', state: 'pending', credential: 'deploy_key', ssh_host_key: hostKey })
  t.notMatch(JSON.stringify(added), 'b3BlbnNzaC1rZXktdjEAAAAA', 'no part of the private key is in the answer')
  const [row] = await app.sql<{ sealed: boolean }>({ text: 'SELECT sealed_credential IS NOT NULL AND position($2 IN sealed_credential) = 0 AS sealed FROM addon_sources WHERE id = $1', values: [added.addon_source.id, 'b3BlbnNzaC1rZXktdjEAAAAA'] })
  t.equal(row?.sealed, true, 'the key is stored sealed, not as written')
})
