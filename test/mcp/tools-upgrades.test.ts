/**
 * upgrade_instance, list_upgrades and get_upgrade call the upgrades service the REST routes call:
 * the same upgrade, refusals and codes, the agent as the actor; apply is gated by `confirm` (the
 * instance's subdomain), test is not. The app runs on the fake Kubernetes API server without job
 * workers: what the tools record and queue is checked, the job itself is upgrades-kubernetes.test.ts's.
 */
import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { uniqueSubdomain } from '../support/instances.ts'
import { assertToolError, assertToolSuccess, tenantSnapshot, useTool } from './tool-helpers.ts'

const COMMANDS = JSON.stringify({ '18.0': { image: 'registry.example/erp-upgrade:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init'] } })
const kube = await fakeKubeApiServer(t, {})
const { app, connectAgent } = await startMcpFixture(t, { ...kubeBackendEnv(t, kube.kubeconfigText), JOB_WORKERS: false, BACKUP_IMAGE: 'registry.example/erp-backup:{pg_major}', ERP_UPGRADE_COMMANDS: COMMANDS })
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Upgrade agent')

t.test('upgrade_instance: apply needs the subdomain in confirm, then queues what the route queues; refusals change nothing', async (t) => {
  const subdomain = uniqueSubdomain('mu')
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', subdomain, name: 'Shop' })
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent', { level: 'operate', instanceIds: null })
  const stranger = await signup(app)
  const strangerAgent = await connectAgent(stranger, 'Stranger agent')
  const upgrades = async () => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM instance_upgrades', values: [] }))[0]?.n
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const upgradesBefore = await upgrades()
  assertToolError(t, await useTool(app, token, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'apply' }), 'CONFIRMATION_REQUIRED', 'apply is destructive: the subdomain is asked for')
  assertToolError(t, await useTool(app, token, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'apply', confirm: 'wrong' }), 'CONFIRMATION_REFUSED')
  assertToolError(t, await useTool(app, token, 'upgrade_instance', { instance_id: id, target_version: '16.0', mode: 'test' }), 'UPGRADE_NOT_NEWER')
  t.equal((await useTool(app, memberAgent.accessToken, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'test' })).isError, true, 'not for an operating agent')
  assertToolError(t, await useTool(app, strangerAgent.accessToken, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'apply', confirm: subdomain }), 'INSTANCE_NOT_FOUND')
  t.same(await tenantSnapshot(app, admin.user.tenant_id), before, 'refusals change nothing')
  t.equal(await upgrades(), upgradesBefore, 'no upgrade recorded by a refusal')

  const made = assertToolSuccess(t, await useTool(app, token, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'apply', confirm: subdomain }), 'upgrade_instance')
  t.match(made.upgrade, { instance_id: id, from_version: '17.0', target_version: '18.0', mode: 'apply', state: 'queued', step: 'backup' })
  const [row] = await app.sql<{ state: string }>({ text: 'SELECT state FROM instances WHERE id = $1', values: [id] })
  t.equal(row?.state, 'upgrading')
  const [activity] = await app.sql<{ actor_kind: string }>({ text: "SELECT actor_kind FROM activities WHERE type = 'instance.upgrade_requested' AND instance_id = $1", values: [id] })
  t.equal(activity?.actor_kind, 'agent', 'the agent is the actor')
  const [job] = await app.sql<{ data: Record<string, unknown> }>({ text: "SELECT data FROM pgboss.job WHERE name = 'instance-upgrades' AND data->>'instanceId' = $1", values: [String(id)] })
  t.match(job?.data, { upgradeId: made.upgrade.id, instanceId: id }, 'the upgrade job is queued')

  const listed = assertToolSuccess(t, await useTool(app, token, 'list_upgrades', { instance_id: id }), 'list_upgrades')
  t.same(listed.upgrades.map((u: { id: number }) => u.id), [made.upgrade.id])
  t.equal(listed.total, 1)
  const one = assertToolSuccess(t, await useTool(app, token, 'get_upgrade', { instance_id: id, upgrade_id: made.upgrade.id }), 'get_upgrade')
  t.match(one.upgrade, { id: made.upgrade.id, state: 'queued' })
  assertToolError(t, await useTool(app, token, 'get_upgrade', { instance_id: id, upgrade_id: 987654 }), 'UPGRADE_NOT_FOUND')
})

t.test('upgrade_instance in test mode makes a staging copy without a confirmation', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', subdomain: uniqueSubdomain('mt') })
  const made = assertToolSuccess(t, await useTool(app, token, 'upgrade_instance', { instance_id: id, target_version: '18.0', mode: 'test' }), 'upgrade_instance test')
  t.match(made.upgrade, { mode: 'test', step: 'staging', rollback_backup_id: null })
  const [copy] = await app.sql<{ kind: string, parent_id: string }>({ text: 'SELECT kind, parent_id FROM instances WHERE id = $1', values: [made.upgrade.staging_instance_id] })
  t.match(copy, { kind: 'staging', parent_id: String(id) })
  const [row] = await app.sql<{ state: string }>({ text: 'SELECT state FROM instances WHERE id = $1', values: [id] })
  t.equal(row?.state, 'running', 'the production instance is not touched')
})

t.test('the tools are listed with their annotations', async (t) => {
  const answer = await app.inject({ method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  const tools = answer.json().result.tools as Array<{ name: string, annotations: Record<string, boolean> }>
  t.match(tools.find((tool) => tool.name === 'upgrade_instance')?.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false })
  t.match(tools.find((tool) => tool.name === 'list_upgrades')?.annotations, { readOnlyHint: true })
  t.match(tools.find((tool) => tool.name === 'get_upgrade')?.annotations, { readOnlyHint: true })
})
