import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, tenantSnapshot, useTool } from './tool-helpers.ts'

// No KUBECONFIG: the kubernetes backend is offered but not configured, so no backup can run here.
const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Backup agent')

async function recordBackup (tenantId: string, instanceId: number, state: string, minutesAgo: number): Promise<number> {
  const [row] = await app.sql<{ id: string }>({
    text: `INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, created_at, updated_at)
           VALUES ($1, $2, $3, 'manual', '17.0', $4, now() - make_interval(mins => $5), now()) RETURNING id`,
    values: [tenantId, instanceId, state, state === 'completed' ? 4096 : null, minutesAgo]
  })
  return Number(row?.id)
}

t.test('list_backups answers the instance\'s backups newest first, as the REST route does', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id)
  const older = await recordBackup(admin.user.tenant_id, instance, 'completed', 60)
  const newer = await recordBackup(admin.user.tenant_id, instance, 'failed', 5)
  const listed = assertToolSuccess(t, await useTool(app, token, 'list_backups', { instance_id: instance }), 'list_backups')
  t.match(listed, { total: 2, page: 1, per_page: 25 })
  t.same(listed.backups.map((backup: { id: number }) => backup.id), [newer, older])
  t.match(listed.backups[1], { state: 'completed', size: 4096, instance_id: instance })
  const rest = await app.inject({ method: 'GET', url: `/api/instances/${instance}/backups`, headers: { authorization: `Bearer ${admin.token}` } })
  t.same(rest.json().backups, listed.backups, 'the same view as the route')
})

t.test('create_backup where no backup can run is an error naming what is missing, never a queued backup', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes' })
  const error = assertToolError(t, await useTool(app, token, 'create_backup', { instance_id: instance }), 'INSTANCE_BACKEND_UNAVAILABLE')
  t.match(error.message, /KUBECONFIG/)
  t.same(await app.sql({ text: 'SELECT id FROM backups WHERE instance_id = $1', values: [instance] }), [], 'nothing recorded')
})

t.test('restore_backup is destructive, asks for the subdomain, is for admins, and another company\'s ids are not found', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, { subdomain: `mcp-restore-${process.pid}` })
  const backup = await recordBackup(admin.user.tenant_id, instance, 'completed', 1)
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: instance, backup_id: backup, confirm: 'wrong' }), 'BACKUP_CONFIRMATION_MISMATCH')
  assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: instance, backup_id: backup }), 'VALIDATION_FAILED', 'confirm missing')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'restore_backup', { instance_id: instance, backup_id: backup, confirm: `mcp-restore-${process.pid}` }), 'FORBIDDEN')
  const other = await signup(app)
  const otherAgent = await connectAgent(other, 'Other agent')
  for (const [tool, args] of [['list_backups', { instance_id: instance }], ['create_backup', { instance_id: instance }],
    ['restore_backup', { instance_id: instance, backup_id: backup, confirm: `mcp-restore-${process.pid}` }]] as const) {
    assertToolError(t, await useTool(app, otherAgent.accessToken, tool, args), tool === 'restore_backup' ? 'BACKUP_NOT_FOUND' : 'INSTANCE_NOT_FOUND', `${tool} for another company`)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
  const listed = await app.inject({ method: 'POST', url: '/api/mcp', headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  const restore = (listed.json().result.tools as Array<{ name: string, annotations: Record<string, unknown> }>).find((tool) => tool.name === 'restore_backup')
  t.match(restore?.annotations, { destructiveHint: true, readOnlyHint: false })
})
