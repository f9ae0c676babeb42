/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`) on MCP 2026-07-28, over real HTTP: the
 * extension's own requester (`@modelcontextprotocol/ext-tasks`) on the v2 SDK's Client calls
 * create_backup, gets a task, and follows it with `tasks/get` while the backup Job runs on the fake
 * Kubernetes API server (which the test ends, as the cluster would). Raw requests check the wire:
 * task ids that are not this agent's, a lowered grant, a client without the extension.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createTaskSessionFromClient, type RawClientDispatch, type TaskOutcome } from '@modelcontextprotocol/ext-tasks/client'
import { bearer, signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { waitFor } from '../support/kube/client-helpers.ts'
import { kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'
import { envelope, MODERN, mcpUrl, modernClient, modernHeaders, rawPost } from '../support/mcp-modern.ts'
import { restCall } from './tool-helpers.ts'
import { RESULT_MARK } from '../../provisioning/kubernetes/backup-job.ts'

const TASKS = 'io.modelcontextprotocol/tasks'
const slow = { timeoutMs: 20_000, intervalMs: 50 }
const kube = await fakeKubeApiServer(t, { readyDelayMs: 100 })
const dir = mkdtempSync(join(tmpdir(), 'erp-tasks-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, {
  ...kubeBackendEnv(t, kube.kubeconfigText),
  INSTANCES_DOMAIN: 'erp.test',
  BACKUP_JOB_RETRIES: 0,
  BACKUP_IMAGE: 'registry.example/erp-backup:{pg_major}',
  BACKUP_DIR: dir
})
t.teardown(() => cleanupInstances(databaseUrl))
const url = await mcpUrl(app)
const admin = await signup(app)
const namespace = `erp-${admin.subdomain}`

/** A running instance of the admin's company (its init Job ended by the test, as the cluster would). */
async function runningInstance (): Promise<number> {
  const subdomain = uniqueSubdomain('task')
  const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Tasks', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const id = created.data.instance.id as number
  await waitFor(async () => kube.get('Job', namespace, `erp-${subdomain}-init`), slow)
  kube.completeJob(namespace, `erp-${subdomain}-init`)
  await waitForState(app, admin.token, id, ['running'])
  return id
}
const instanceId = await runningInstance()

/** The id of the instance's newest backup. */
const newestBackup = async () => Number((await app.sql<{ id: string }>({ text: 'SELECT id FROM backups WHERE instance_id = $1 ORDER BY id DESC LIMIT 1', values: [instanceId] }))[0]!.id)

/** The backup Job of a backup, once the cluster has it. */
const backupJob = async (backupId: number) => waitFor(async () => kube.get('Job', namespace, `erp-backup-${backupId}`), slow)

/** The cluster ends the backup's Job well; waits until the backup has settled (one backup at a time per instance). */
async function endBackup (backupId: number) {
  await backupJob(backupId)
  kube.setPodLogs(namespace, `erp-backup-${backupId}`, `${RESULT_MARK} 4096 ${'c'.repeat(64)}\n`)
  kube.completeJob(namespace, `erp-backup-${backupId}`)
  await settled(backupId)
}

const settled = async (backupId: number) => waitFor(async () => {
  const [row] = await app.sql<{ state: string }>({ text: 'SELECT state FROM backups WHERE id = $1', values: [backupId] })
  return row !== undefined && !['queued', 'running'].includes(row.state)
}, slow)

/** Headers with lower-case names, so that a caller's `Mcp-Name` replaces ours rather than joining it. */
const lowerCased = (headers: Record<string, string> = {}) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

/** One framed JSON-RPC request on real HTTP with the standard headers (Mcp-Name: the tool's name, or the task id). */
function rawDispatch (token: string): RawClientDispatch {
  let id = 0
  return async (request, options) => {
    const { method, params } = request as { method: string, params: Record<string, any> }
    const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined
    const headers = { ...modernHeaders(token, method, name), ...lowerCased(options?.context?.headers) }
    const { json, status, text } = await rawPost(url, headers, { jsonrpc: '2.0', id: ++id, ...request as Record<string, unknown> })
    if (json === undefined) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`)
    return 'error' in json ? { kind: 'error', error: json.error } : { kind: 'result', result: json.result }
  }
}

/** The extension's requester session on the v2 SDK's Client, pinned to 2026-07-28. */
async function taskSession (token: string) {
  const { client } = await modernClient(url, token)
  const session = createTaskSessionFromClient(client, {
    endpointId: 'erp-portal-test',
    rawDispatch: rawDispatch(token),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'tasks-test', version: '1.0.0' }, clientCapabilities: {} }
  })
  return { client, session, close: async () => { await session.close(); await client.close() } }
}

/** A raw 2026-07-28 request, with the Tasks extension declared unless `declared` is false. */
async function raw (token: string, method: string, params: Record<string, unknown>, declared = true) {
  const name = method === 'tools/call' ? params.name as string : method.startsWith('tasks/') ? params.taskId as string : undefined
  const meta = envelope(declared ? { extensions: { [TASKS]: {} } } : {})
  return rawPost(url, modernHeaders(token, method, name), { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } })
}

type CallResult = { isError?: boolean, structuredContent: Record<string, any> }

t.test('server/discover offers the extension; a task-taking client follows create_backup to its end with tasks/get', async (t) => {
  const agent = await connectAgent(admin, 'Task agent')
  const { client, session, close } = await taskSession(agent.accessToken)
  t.teardown(close)
  t.same(client.getServerCapabilities()?.extensions?.[TASKS], {}, 'the extension, with no settings')

  const execution = await session.callTool('create_backup', { instance_id: instanceId })
  t.equal(execution.kind, 'task', 'a job-starting tool answers a task')
  const handle = execution.handle!
  t.type(handle.taskId, 'string')

  const backupId = await newestBackup()
  await backupJob(backupId)
  // While the Job runs, tasks/get says the task works, with the backup's state.
  const working = await raw(agent.accessToken, 'tasks/get', { taskId: handle.taskId })
  t.match(working.json?.result, { resultType: 'complete', taskId: handle.taskId, status: 'working', statusMessage: /^Backup (queued|running)/, ttlMs: Number, pollIntervalMs: Number })
  t.notOk('result' in working.json.result, 'no result before the end')

  await endBackup(backupId)
  const { outcome } = await execution.settle()
  t.equal(outcome.status, 'completed', outcome.status === 'failed' ? `${String(outcome.error)} ${JSON.stringify(outcome.error)} ${String((outcome.error as any).cause)}` : '')
  const result = (outcome as Extract<TaskOutcome<CallResult>, { status: 'completed' }>).result
  t.notOk(result.isError)
  t.match(result.structuredContent, { backup: { instance_id: instanceId, state: 'completed', size: 4096, sha256: 'c'.repeat(64) } })
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${instanceId}/backups/${result.structuredContent.backup.id}`)
  t.same(result.structuredContent, rest.data, 'the final result is the backup as get_backup reads it')

  const done = await raw(agent.accessToken, 'tasks/get', { taskId: handle.taskId })
  t.match(done.json?.result, { status: 'completed', statusMessage: 'Backup completed', result: { structuredContent: { backup: { state: 'completed' } } } })
  t.equal(Date.parse(done.json.result.lastUpdatedAt), Math.max(Date.parse(done.json.result.createdAt), Date.parse(rest.data.backup.completed_at)), 'last updated: when the backup completed')

  // The backup's row gone meanwhile: the read tool would answer BACKUP_NOT_FOUND, and so does the task's result.
  await app.sql({ text: 'DELETE FROM backups WHERE id = $1', values: [backupId] })
  const gone = await raw(agent.accessToken, 'tasks/get', { taskId: handle.taskId })
  t.match(gone.json?.result, { status: 'completed', statusMessage: /^BACKUP_NOT_FOUND: /, result: { resultType: 'complete', isError: true, structuredContent: { error: { code: 'BACKUP_NOT_FOUND' } } } })

  const calls = await app.sql<{ tool: string, outcome: string }>({ text: 'SELECT tool, outcome FROM agent_tool_calls WHERE grant_id = $1 ORDER BY id', values: [agent.grantId] })
  t.same(calls, [{ tool: 'create_backup', outcome: 'ok' }], 'the starting call is recorded, as without tasks')
})

t.test('a backup whose Job fails: the task completes with the failed backup, the reason in statusMessage', async (t) => {
  const agent = await connectAgent(admin, 'Failing task agent')
  const started = await raw(agent.accessToken, 'tools/call', { name: 'create_backup', arguments: { instance_id: instanceId } })
  t.match(started.json?.result, { resultType: 'task', status: 'working', taskId: String, createdAt: String, lastUpdatedAt: String, ttlMs: Number, pollIntervalMs: Number })
  t.notOk('content' in started.json.result, 'a CreateTaskResult, not a CallToolResult')
  const { taskId } = started.json.result
  const backupId = await newestBackup()
  await backupJob(backupId)
  kube.failJob(namespace, `erp-backup-${backupId}`, { exitCode: 3 })
  await settled(backupId)

  const ended = await waitFor(async () => {
    const answer = await raw(agent.accessToken, 'tasks/get', { taskId })
    return answer.json?.result?.status === 'working' ? undefined : answer.json.result
  }, slow)
  // A JSON-RPC error would be `failed`; a tool call that answered (its backup failed) is `completed`, as the extension says.
  t.equal(ended.status, 'completed')
  const backup = ended.result.structuredContent.backup
  t.equal(backup.state, 'failed')
  t.type(backup.error, 'string')
  t.equal(ended.statusMessage, `Backup failed: ${backup.error}`, 'the reason, as the backup row gives it')
  t.notOk(ended.result.isError, 'the same answer as get_backup, as with progress')
})

t.test('task ids that are not this agent\'s: forged, altered, another company\'s, another agent\'s → -32602', async (t) => {
  const agent = await connectAgent(admin, 'Owner agent')
  const started = await raw(agent.accessToken, 'tools/call', { name: 'create_backup', arguments: { instance_id: instanceId } })
  const { taskId } = started.json.result as { taskId: string }
  const [payload, mac] = taskId.split('.') as [string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  const otherBackup = Buffer.from(JSON.stringify({ ...claims, subject: { ...claims.subject, backupId: claims.subject.backupId + 1 } })).toString('base64url')

  const other = await signup(app)
  const stranger = await connectAgent(other, 'Other company agent')
  const sibling = await connectAgent(admin, 'Same company, other agent')
  const cases: Array<[string, string, string]> = [
    ['made up', 'no-such-task', agent.accessToken],
    ['another subject, same MAC', `${otherBackup}.${mac}`, agent.accessToken],
    ['MAC altered', `${payload}.${mac.slice(0, -2)}AA`, agent.accessToken],
    ['another company\'s agent', taskId, stranger.accessToken],
    ['another agent of the company', taskId, sibling.accessToken]
  ]
  for (const [label, id, token] of cases) {
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const answer = await raw(token, method, { taskId: id })
      t.match(answer.json, { error: { code: -32602, message: 'Failed to retrieve task: Task not found' } }, `${label}: ${method}`)
    }
  }

  const fine = await raw(agent.accessToken, 'tasks/get', { taskId })
  t.match(fine.json?.result, { taskId, status: /working|completed/ }, 'the agent that started it follows it')
  await endBackup(await newestBackup())
})

t.test('tasks/cancel is acknowledged and the job goes on; tasks/* without the extension declared is -32021', async (t) => {
  const agent = await connectAgent(admin, 'Cancelling agent')
  const started = await raw(agent.accessToken, 'tools/call', { name: 'create_backup', arguments: { instance_id: instanceId } })
  const { taskId } = started.json.result as { taskId: string }
  const cancelled = await raw(agent.accessToken, 'tasks/cancel', { taskId })
  t.match(cancelled.json, { result: { resultType: 'complete' } })
  t.notOk('error' in cancelled.json)

  const undeclared = await raw(agent.accessToken, 'tasks/get', { taskId }, false)
  t.match(undeclared.json, { error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } })

  await endBackup(await newestBackup())
  const ended = await waitFor(async () => {
    const answer = await raw(agent.accessToken, 'tasks/get', { taskId })
    return answer.json?.result?.status === 'working' ? undefined : answer.json.result
  }, slow)
  t.match(ended, { status: 'completed', result: { structuredContent: { backup: { state: 'completed' } } } }, 'not stopped: the backup ran to its end')
})

t.test('a client without the extension gets today\'s answer: the queued backup, at once', async (t) => {
  const agent = await connectAgent(admin, 'Plain agent')
  const answer = await raw(agent.accessToken, 'tools/call', { name: 'create_backup', arguments: { instance_id: instanceId } }, false)
  t.match(answer.json?.result, { resultType: 'complete', structuredContent: { backup: { instance_id: instanceId, state: 'queued' } } })
  t.notOk('taskId' in answer.json.result)

  const { client } = await modernClient(url, agent.accessToken)
  t.teardown(() => client.close())
  const read = await client.callTool({ name: 'get_backup', arguments: { instance_id: instanceId, backup_id: answer.json.result.structuredContent.backup.id } }) as CallResult
  t.match(read.structuredContent, { backup: { state: /queued|running/ } }, 'the SDK Client as before')
  await endBackup(answer.json.result.structuredContent.backup.id)
})

t.test('a grant lowered below the starting tool, or bound to other instances, can no longer follow its task', async (t) => {
  const agent = await connectAgent(admin, 'Lowered agent')
  const started = await raw(agent.accessToken, 'tools/call', { name: 'create_backup', arguments: { instance_id: instanceId } })
  const { taskId } = started.json.result as { taskId: string }
  const put = async (payload: Record<string, unknown>) => {
    const response = await app.inject({ method: 'PUT', url: `/api/oauth/grants/${agent.grantId}`, headers: bearer(admin.token), payload })
    t.equal(response.statusCode, 200, JSON.stringify(payload))
  }

  await put({ level: 'read', instance_ids: null })
  const lowered = await raw(agent.accessToken, 'tasks/get', { taskId })
  t.match(lowered.json, { error: { code: -32602, message: /^Failed to retrieve task: AGENT_LEVEL_TOO_LOW: /, data: { code: 'AGENT_LEVEL_TOO_LOW' } } })

  const other = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Other', subdomain: uniqueSubdomain('oth'), erp_version: '17.0', backend: 'kubernetes' })
  await put({ level: 'administer', instance_ids: [other.data.instance.id] })
  const unbound = await raw(agent.accessToken, 'tasks/get', { taskId })
  t.match(unbound.json, { error: { code: -32602, data: { code: 'INSTANCE_NOT_FOUND' } } })

  await put({ level: 'administer', instance_ids: null })
  const again = await raw(agent.accessToken, 'tasks/get', { taskId })
  t.match(again.json?.result, { taskId }, 'raised again, it follows it again: the id was never the problem')
  await endBackup(await newestBackup())
})

t.test('stop_instance as a task ends with the instance as get_instance reads it; asking again starts nothing and answers at once', async (t) => {
  const agent = await connectAgent(admin, 'Stopping agent')
  const id = await runningInstance()
  const started = await raw(agent.accessToken, 'tools/call', { name: 'stop_instance', arguments: { instance_id: id } })
  t.match(started.json?.result, { resultType: 'task', status: 'working' })
  const { taskId } = started.json.result as { taskId: string }
  const ended = await waitFor(async () => {
    const answer = await raw(agent.accessToken, 'tasks/get', { taskId })
    return answer.json?.result?.status === 'working' ? undefined : answer.json.result
  }, slow)
  t.match(ended, { status: 'completed', statusMessage: 'Instance stopped', result: { resultType: 'complete', structuredContent: { queued: true, instance: { id, state: 'stopped' } } } })
  const rest = await restCall(app, admin.token, 'GET', `/api/instances/${id}`)
  t.same(ended.result.structuredContent.instance, rest.data.instance, 'the instance in full, as get_instance answers it')
  t.same(JSON.parse(ended.result.content[0].text), ended.result.structuredContent, 'the text is the same answer')

  const again = await raw(agent.accessToken, 'tools/call', { name: 'stop_instance', arguments: { instance_id: id } })
  t.match(again.json?.result, { resultType: 'complete', structuredContent: { queued: false, instance: { state: 'stopped' } } }, 'nothing started, so no task')
})
