import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { captureLog } from '../support/log-capture.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, latestActivity, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

// No KUBECONFIG: the kubernetes backend is offered but not configured, so no backup can run here,
// and the reconciler leaves its recorded instances as they are (a recorded docker instance has no
// container: the reconciler would move it to `error` in the middle of a before-and-after comparison).
const { lines, logger } = captureLog()
const { app, connectAgent } = await startMcpFixture(t, { INSTANCE_BACKENDS: 'docker,kubernetes' }, { logger })
const IDLE = { backend: 'kubernetes' }
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
  const instance = await recordInstance(app, admin.user.tenant_id, IDLE)
  const older = await recordBackup(admin.user.tenant_id, instance, 'completed', 60)
  const newer = await recordBackup(admin.user.tenant_id, instance, 'failed', 5)
  const listed = assertToolSuccess(t, await useTool(app, token, 'list_backups', { instance_id: instance }), 'list_backups')
  t.match(listed, { total: 2, page: 1, per_page: 25 })
  t.same(listed.backups.map((backup: { id: number }) => backup.id), [newer, older])
  t.match(listed.backups[1], { state: 'completed', size: 4096, instance_id: instance })
  const rest = await app.inject({ method: 'GET', url: `/api/instances/${instance}/backups`, headers: { authorization: `Bearer ${admin.token}` } })
  t.same(rest.json().backups, listed.backups, 'the same view as the route')
})

t.test('create_backup where no backup can run is the REST error in the tenant\'s words, the operator\'s detail logged, never a queued backup', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes' })
  const error = assertToolError(t, await useTool(app, token, 'create_backup', { instance_id: instance }), 'INSTANCE_BACKEND_UNAVAILABLE')
  t.same(error, {
    code: 'INSTANCE_BACKEND_UNAVAILABLE',
    message: 'Instances on kubernetes cannot run right now: the hosting platform is not ready for them. The operator has been told.',
    details: { backend: 'kubernetes' }
  })
  t.notMatch(JSON.stringify(error), /KUBECONFIG|INSTANCE_BACKENDS|kubeconfig/, 'no setting reaches the agent')
  const logged = lines.find((line) => line.msg === 'MCP tool failed' && line.tool === 'create_backup') as { request_id?: string, err?: { operator?: unknown } } | undefined
  t.match(logged?.err?.operator, { hint: /KUBECONFIG/ }, 'the operator reads how to configure kubernetes')
  t.type(logged?.request_id, 'string', 'with the request id')
  t.same(await app.sql({ text: 'SELECT id FROM backups WHERE instance_id = $1', values: [instance] }), [], 'nothing recorded')
})

t.test('restore_backup is destructive, asks for the subdomain, is for admins, and another company\'s ids are not found', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, { ...IDLE, subdomain: `mcp-restore-${process.pid}` })
  const backup = await recordBackup(admin.user.tenant_id, instance, 'completed', 1)
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: instance, backup_id: backup, confirm: 'wrong' }), 'BACKUP_CONFIRMATION_MISMATCH')
  const missing = assertToolError(t, await useTool(app, token, 'restore_backup', { instance_id: instance, backup_id: backup }), 'CONFIRMATION_REQUIRED', 'confirm missing')
  t.match(missing.message, /Ask the person first; if they agree, call restore_backup again with `confirm` set to the instance's subdomain/, 'it says what to pass')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'restore_backup', { instance_id: instance, backup_id: backup }), 'FORBIDDEN', 'a member without confirm: the role first')
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

t.test('get_backup answers one backup with its progress, as the REST route does', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, IDLE)
  const running = await recordBackup(admin.user.tenant_id, instance, 'running', 1)
  await app.sql({ text: "UPDATE backups SET step = 'dumping the database', started_at = now() WHERE id = $1", values: [running] })
  const got = assertToolSuccess(t, await useTool(app, token, 'get_backup', { instance_id: instance, backup_id: running }), 'get_backup')
  t.match(got.backup, { id: running, instance_id: instance, state: 'running', step: 'dumping the database', size: null })
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${instance}/backups/${running}`)
  t.same(got, rest.data, 'the same view as the route')
  const otherInstance = await recordInstance(app, admin.user.tenant_id, IDLE)
  assertToolError(t, await useTool(app, token, 'get_backup', { instance_id: otherInstance, backup_id: running }), 'BACKUP_NOT_FOUND', 'a backup of another instance')
})

t.test('delete_backup removes a finished backup (admin), refuses one under way, and records the agent', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, IDLE)
  const done = await recordBackup(admin.user.tenant_id, instance, 'completed', 30)
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const confirm = (await restCall(app, admin.token, 'GET', `/api/instances/${instance}`)).data.instance.subdomain as string
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'delete_backup', { instance_id: instance, backup_id: done, confirm }), 'FORBIDDEN', 'a member')
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'delete_backup', { instance_id: instance, backup_id: done }), 'FORBIDDEN', 'a member without confirm: the role first')
  const missing = assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done }), 'CONFIRMATION_REQUIRED', 'no confirm')
  t.match(missing.message, /^Deleting backup #\d+ removes its archive for good\. Ask the person first; if they agree, call delete_backup again with `confirm` set to the instance's subdomain/, 'it says what to pass')
  const wrong = assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done, confirm: 'not-it' }), 'CONFIRMATION_REFUSED', 'another value')
  t.same(wrong.details, { field: 'confirm' })
  assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done + 1000, confirm }), 'BACKUP_NOT_FOUND', 'no such backup, confirmed or not')
  assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done + 1000 }), 'BACKUP_NOT_FOUND', 'no such backup')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'the refusals changed nothing')
  t.same(await app.sql({ text: 'SELECT state FROM backups WHERE id = $1', values: [done] }), [{ state: 'completed' }], 'the backup is still there')

  const deleted = assertToolSuccess(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done, confirm }), 'delete_backup')
  t.same(deleted, { deleted: true, instance_id: instance, backup_id: done })
  t.same(await app.sql({ text: 'SELECT id FROM backups WHERE id = $1', values: [done] }), [], 'the record is gone')
  t.match(await latestActivity(app, admin, 'backup.deleted'), { target_id: String(done), actor: { kind: 'agent', id: admin.user.id } })
  assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: done, confirm }), 'BACKUP_NOT_FOUND', 'asked again')

  const running = await recordBackup(admin.user.tenant_id, instance, 'running', 1)
  assertToolError(t, await useTool(app, token, 'delete_backup', { instance_id: instance, backup_id: running, confirm }), 'BACKUP_IN_PROGRESS')
  t.same(await app.sql({ text: 'SELECT state FROM backups WHERE id = $1', values: [running] }), [{ state: 'running' }], 'kept')
})

t.test('get_backup_schedule and set_backup_schedule: the defaults, the whole schedule set by an admin, the same again', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, IDLE)
  const initial = assertToolSuccess(t, await useTool(app, token, 'get_backup_schedule', { instance_id: instance }), 'get_backup_schedule')
  t.same(initial.schedule, { instance_id: instance, enabled: false, hour_utc: 2, keep_daily: 7, keep_weekly: 4, last_run_on: null })
  const wanted = { enabled: true, hour_utc: 23, keep_daily: 3, keep_weekly: 2 }
  const set = assertToolSuccess(t, await useTool(app, token, 'set_backup_schedule', { instance_id: instance, ...wanted }), 'set_backup_schedule')
  t.same(set.schedule, { instance_id: instance, ...wanted, last_run_on: null })
  t.same(assertToolSuccess(t, await useTool(app, token, 'set_backup_schedule', { instance_id: instance, ...wanted }), 'again').schedule, set.schedule, 'the same schedule again')
  t.same((await restCall(app, admin.token, 'GET', `/api/instances/${instance}/backup-schedule`)).data, set, 'the route reads what the tool set')
  t.same(assertToolSuccess(t, await useTool(app, token, 'get_backup_schedule', { instance_id: instance }), 'read back'), set)
  t.match(await latestActivity(app, admin, 'backup.schedule_updated'), { target_id: String(instance), actor: { kind: 'agent', id: admin.user.id } })

  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  t.same(assertToolSuccess(t, await useTool(app, memberAgent.accessToken, 'get_backup_schedule', { instance_id: instance }), 'a member reads').schedule, set.schedule)
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'set_backup_schedule', { instance_id: instance, ...wanted, enabled: false }), 'FORBIDDEN', 'a member sets')
  assertToolError(t, await useTool(app, token, 'set_backup_schedule', { instance_id: instance, ...wanted, hour_utc: 24 }), 'VALIDATION_FAILED', 'hour 24')
  assertToolError(t, await useTool(app, token, 'set_backup_schedule', { instance_id: instance, enabled: false }), 'VALIDATION_FAILED', 'a partial schedule')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('the new backup tools: admin only where they change things, and another company\'s ids are not found', async (t) => {
  const instance = await recordInstance(app, admin.user.tenant_id, IDLE)
  const backup = await recordBackup(admin.user.tenant_id, instance, 'completed', 1)
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const asNew = { instance_id: instance, backup_id: backup, name: 'Copy', subdomain: `mcp-copy-${process.pid}` }
  const schedule = { instance_id: instance, enabled: true, hour_utc: 1, keep_daily: 1, keep_weekly: 0 }
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  assertToolError(t, await useTool(app, memberAgent.accessToken, 'restore_backup_as_new_instance', asNew), 'FORBIDDEN', 'a member restores as new')
  const other = await signup(app)
  const otherAgent = (await connectAgent(other, 'Other agent')).accessToken
  const calls: Array<[string, Record<string, unknown>, string]> = [
    ['get_backup', { instance_id: instance, backup_id: backup }, 'BACKUP_NOT_FOUND'],
    ['delete_backup', { instance_id: instance, backup_id: backup }, 'INSTANCE_NOT_FOUND'],
    ['restore_backup_as_new_instance', asNew, 'BACKUP_NOT_FOUND'],
    ['get_backup_schedule', { instance_id: instance }, 'INSTANCE_NOT_FOUND'],
    ['set_backup_schedule', schedule, 'INSTANCE_NOT_FOUND']
  ]
  for (const [tool, args, code] of calls) assertToolError(t, await useTool(app, otherAgent, tool, args), code, `${tool} for another company`)
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing of the owner changed')
})
