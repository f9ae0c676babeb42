/**
 * create_staging_copy and refresh_staging_copy call the staging service the REST routes call: the
 * same copy (kind, parent, expiry), the same refusals and codes, the agent as the actor. The app runs
 * on the fake Kubernetes API server without job workers: what the tools record and queue is checked,
 * the restore job itself is staging-kubernetes.test.ts's.
 */
import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { uniqueSubdomain } from '../support/instances.ts'
import { assertToolError, assertToolSuccess, tenantSnapshot, useTool } from './tool-helpers.ts'

const kube = await fakeKubeApiServer(t, {})
const { app, connectAgent } = await startMcpFixture(t, { ...kubeBackendEnv(t, kube.kubeconfigText), JOB_WORKERS: false, BACKUP_IMAGE: 'registry.example/erp-backup:{pg_major}' })
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Staging agent')

async function completedBackup (instanceId: number): Promise<number> {
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, archive_key, archive_sha256, created_at, completed_at, updated_at)
           VALUES ($1, $2, 'completed', 'manual', '17.0', 4096, $3, $4, now(), now(), now()) RETURNING id`,
    values: [admin.user.tenant_id, instanceId, `kubernetes:backups-${admin.subdomain}/x/backup.tar`, 'b'.repeat(64)]
  })
  return Number(row?.id)
}

t.test('create_staging_copy makes the copy the route makes, by the agent, and refuses as the route does', async (t) => {
  const subdomain = uniqueSubdomain('mp')
  const parent = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', subdomain, name: 'Shop' })
  const backup = await completedBackup(parent)
  const made = assertToolSuccess(t, await useTool(app, token, 'create_staging_copy', { instance_id: parent, from_backup_id: backup }), 'create_staging_copy')
  t.match(made.instance, { kind: 'staging', parent_id: parent, state: 'restoring', name: 'Shop (staging)', subdomain: `${subdomain}-staging` })
  t.type(made.instance.expires_at, 'string')
  const [activity] = await app.sql<{ actor_kind: string }>({ text: "SELECT actor_kind FROM activities WHERE type = 'instance.staging_created' AND instance_id = $1", values: [made.instance.id] })
  t.equal(activity?.actor_kind, 'agent', 'the agent is the actor')
  const [job] = await app.sql<{ data: Record<string, unknown> }>({ text: "SELECT data FROM pgboss.job WHERE name = 'instance-backups' AND data->>'instanceId' = $1", values: [String(made.instance.id)] })
  t.match(job?.data, { action: 'restore', backupId: backup, targetInstanceId: made.instance.id, staging: 'create' }, 'the restore job is queued')

  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent', { level: 'operate', instanceIds: null })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'create_staging_copy', { instance_id: made.instance.id }), 'STAGING_OF_STAGING')
  assertToolError(t, await useTool(app, token, 'create_staging_copy', { instance_id: parent, from_backup_id: 987654 }), 'BACKUP_NOT_FOUND')
  const stranger = await signup(app)
  const strangerAgent = await connectAgent(stranger, 'Stranger agent')
  assertToolError(t, await useTool(app, strangerAgent.accessToken, 'create_staging_copy', { instance_id: parent }), 'INSTANCE_NOT_FOUND')
  const refused = await useTool(app, memberAgent.accessToken, 'create_staging_copy', { instance_id: parent })
  t.equal(refused.isError, true, 'not for a member\'s agent')
  t.same(await tenantSnapshot(app, admin.user.tenant_id), before, 'refusals change nothing')
})

t.test('refresh_staging_copy refuses a production instance and refreshes a copy', async (t) => {
  const parent = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', subdomain: uniqueSubdomain('mr') })
  const copy = assertToolSuccess(t, await useTool(app, token, 'create_staging_copy', { instance_id: parent, from_backup_id: await completedBackup(parent) }), 'made').instance
  assertToolError(t, await useTool(app, token, 'refresh_staging_copy', { instance_id: parent }), 'INSTANCE_NOT_STAGING')
  assertToolError(t, await useTool(app, token, 'refresh_staging_copy', { instance_id: copy.id, confirm: copy.subdomain }), 'INSTANCE_BUSY', 'while it is being made')
  await app.sql({ text: "UPDATE instances SET state = 'running', status = 'running', expires_at = now() + interval '1 day' WHERE id = $1", values: [copy.id] })
  assertToolError(t, await useTool(app, token, 'refresh_staging_copy', { instance_id: copy.id }), 'CONFIRMATION_REQUIRED', 'destructive: the subdomain is asked for')
  assertToolError(t, await useTool(app, token, 'refresh_staging_copy', { instance_id: copy.id, confirm: 'wrong' }), 'CONFIRMATION_REFUSED')
  const refreshed = assertToolSuccess(t, await useTool(app, token, 'refresh_staging_copy', { instance_id: copy.id, confirm: copy.subdomain }), 'refresh_staging_copy')
  t.match(refreshed.instance, { id: copy.id, kind: 'staging', state: 'restoring' })
  t.ok(Date.parse(refreshed.instance.expires_at) > Date.now() + 29 * 86_400_000, 'its expiry starts over')
  const backups = await app.sql<{ state: string }>({ text: 'SELECT state FROM backups WHERE instance_id = $1 ORDER BY id', values: [parent] })
  t.same(backups.map((b) => b.state), ['completed', 'queued'], 'a fresh backup of the production instance is queued')
})

t.test('both tools are listed for an administering agent with their annotations', async (t) => {
  const answer = await app.inject({ method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  const tools = answer.json().result.tools as Array<{ name: string, annotations: Record<string, boolean> }>
  t.match(tools.find((tool) => tool.name === 'create_staging_copy')?.annotations, { readOnlyHint: false, destructiveHint: false })
  t.match(tools.find((tool) => tool.name === 'refresh_staging_copy')?.annotations, { readOnlyHint: false, destructiveHint: true })
})
