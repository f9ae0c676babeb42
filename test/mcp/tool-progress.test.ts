/**
 * Long operations with progress: the MCP SDK's own Client over real HTTP calls a job-starting tool
 * with a progressToken (`onprogress`), and the call stays open on an SSE answer until the job ends;
 * the Kubernetes backend on the fake API server makes the job really move (no Docker).
 */
import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { waitFor } from '../support/kube/client-helpers.ts'
import { mcpHeaders, kubeBackendEnv, startMcpFixture } from '../support/mcp.ts'

const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0 })
const kubeEnv = kubeBackendEnv(t, kube.kubeconfigText)

// Two portals on the fake cluster: one that waits long enough for a job to end, one that waits a second.
const patient = await startMcpFixture(t, { ...kubeEnv, MCP_PROGRESS_MAX_SECONDS: 30 })
t.teardown(() => cleanupInstances(patient.databaseUrl))
const hasty = await startMcpFixture(t, { ...kubeEnv, MCP_PROGRESS_MAX_SECONDS: 1 })
t.teardown(() => cleanupInstances(hasty.databaseUrl))
// Closing the portal here waits about 70 s for keep-alive sockets of this process's own HTTP clients
// that the server does not count as idle (not understood; also seen when the initialize answer grows;
// the aborted stream's own socket is closed at once). Ending them first keeps the file quick.
t.teardown(() => { patient.app.server.closeAllConnections() })

/** A person, their agent's token, and the portal listening on real HTTP. */
async function agentOn (fixture: typeof patient) {
  const admin = await signup(fixture.app)
  const { accessToken } = await fixture.connectAgent(admin, 'Progress agent')
  const address = fixture.app.server.listening ? `http://127.0.0.1:${(fixture.app.server.address() as { port: number }).port}` : await fixture.app.listen({ port: 0, host: '127.0.0.1' })
  return { admin, accessToken, address }
}

async function sdkClient (t: Test, fixture: typeof patient, protocolVersion?: string) {
  const { admin, accessToken, address } = await agentOn(fixture)
  const transport = new StreamableHTTPClientTransport(new URL(`${address}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } })
  const client = new Client({ name: 'progress-test', version: '1.0.0' })
  await client.connect(transport)
  // The endpoint is stateless: every request carries its version in the header, which this sets.
  if (protocolVersion !== undefined) transport.setProtocolVersion(protocolVersion)
  t.teardown(() => client.close())
  return { admin, accessToken, address, client }
}

async function callWithProgress (client: Client, name: string, args: Record<string, unknown>) {
  const updates: Progress[] = []
  const result = await client.callTool({ name, arguments: args }, undefined, { onprogress: (update) => { updates.push(update) } })
  return { result: result as { isError?: boolean, structuredContent: Record<string, any> }, updates }
}

function assertIncreasing (t: Test, updates: Progress[]) {
  t.ok(updates.length >= 1, `${updates.length} progress notifications`)
  t.ok(updates.every((update, i) => i === 0 || update.progress > updates[i - 1]!.progress), 'progress only increases')
  t.ok(updates.every((update) => typeof update.message === 'string' && update.message.length > 0), 'each says what is going on')
}

for (const version of ['2025-11-25', '2025-06-18']) {
  t.test(`${version}: create_instance with a progressToken answers once the instance runs, after progress notifications`, async (t) => {
    const { admin, client } = await sdkClient(t, patient, version)
    const subdomain = uniqueSubdomain('prog')
    const started = Date.now()
    const { result, updates } = await callWithProgress(client, 'create_instance', { name: 'Progress', subdomain, erp_version: '17.0', backend: 'kubernetes' })
    t.notOk(result.isError, JSON.stringify(result.structuredContent).slice(0, 300))
    const { instance, wait } = result.structuredContent
    t.equal(instance.state, 'running', 'the final result shows the end state')
    t.match(instance, { subdomain, backend: 'kubernetes', database_name: String }, 'the instance in full, as get_instance answers it')
    t.match(wait, { finished: true, seconds: Number })
    assertIncreasing(t, updates)
    t.match(updates[0]!.message, /^Instance (provisioning|running)$/)
    const last = updates.at(-1)!
    t.same({ total: last.total, message: last.message }, { total: last.progress, message: 'Instance running' }, 'the last one is complete')

    // The audit trail: one row, ok, lasting the whole call.
    const [call] = await patient.app.sql<{ outcome: string, duration_ms: number }>({ text: "SELECT outcome, duration_ms FROM agent_tool_calls WHERE tenant_id = $1 AND tool = 'create_instance'", values: [admin.user.tenant_id] })
    t.equal(call?.outcome, 'ok')
    t.ok(call!.duration_ms >= 0 && call!.duration_ms <= Date.now() - started, `duration ${call?.duration_ms} ms is the call's`)
  })
}

t.test('stop_instance with a progressToken follows the instance to stopped; asking again follows nothing', async (t) => {
  const { admin, client } = await sdkClient(t, patient)
  const subdomain = uniqueSubdomain('stop')
  const created = await client.callTool({ name: 'create_instance', arguments: { name: 'Stop me', subdomain, erp_version: '17.0', backend: 'kubernetes' } })
  const id = (created.structuredContent as { instance: { id: number, state: string } }).instance.id
  t.equal((created.structuredContent as { instance: { state: string } }).instance.state, 'provisioning', 'without a progressToken it answers at once, as before')
  await waitForState(patient.app, admin.token, id, ['running'])

  const { result, updates } = await callWithProgress(client, 'stop_instance', { instance_id: id })
  t.match(result.structuredContent, { queued: true, instance: { id, state: 'stopped' }, wait: { finished: true } })
  assertIncreasing(t, updates)
  t.equal(updates.at(-1)!.message, 'Instance stopped')

  const again = await callWithProgress(client, 'stop_instance', { instance_id: id })
  t.match(again.result.structuredContent, { queued: false, instance: { state: 'stopped' } })
  t.notOk('wait' in again.result.structuredContent, 'nothing was started, so nothing is followed')
  t.same(again.updates, [])
})

t.test('past MCP_PROGRESS_MAX_SECONDS the result says the job still runs and which read tool to poll', async (t) => {
  const { admin, client } = await sdkClient(t, hasty)
  const subdomain = uniqueSubdomain('slow')
  // The instance's pod stays not ready (still being created) until released.
  kube.holdNotReady(`erp-${admin.subdomain}`, `erp-${subdomain}`, { reason: 'ContainerCreating' })
  const started = Date.now()
  const { result, updates } = await callWithProgress(client, 'create_instance', { name: 'Slow', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const elapsed = Date.now() - started
  t.notOk(result.isError)
  const { instance, wait } = result.structuredContent
  t.equal(instance.state, 'provisioning', 'still at work')
  t.match(wait, { finished: false, poll: { tool: 'get_instance_status', arguments: { instance_id: instance.id } } })
  t.match(wait.message, /^Instance provisioning after [\d.]+ s; it goes on\. Poll get_instance_status with \{"instance_id":\d+\} until it ends\.$/)
  t.ok(elapsed >= 1000 && elapsed < 5000, `answered after ${elapsed} ms: the one second it may wait, not much more`)
  assertIncreasing(t, updates)
  t.ok(updates.length >= 2, 'a read at the start and one at the bound')
  t.ok(updates.every((update) => update.total === undefined), 'no total: the end is not known')

  kube.releaseHold(`erp-${admin.subdomain}`, `erp-${subdomain}`)
  await waitForState(hasty.app, admin.token, instance.id, ['running'])
})

t.test('over raw HTTP: a progressToken gets an SSE answer (notifications, then the result); without one the answer stays JSON', async (t) => {
  const { admin, accessToken, address } = await agentOn(patient)
  const id = (await (await fetch(`${address}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders(accessToken),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_instance', arguments: { name: 'Raw', subdomain: uniqueSubdomain('raw'), erp_version: '17.0', backend: 'kubernetes' } } })
  })).json() as { result: { structuredContent: { instance: { id: number } } } }).result.structuredContent.instance.id
  await waitForState(patient.app, admin.token, id, ['running'])

  const plain = await fetch(`${address}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders(accessToken),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'restart_instance', arguments: { instance_id: id } } })
  })
  t.match(plain.headers.get('content-type'), /^application\/json/, 'no progressToken: JSON, at once')
  t.match(await plain.json(), { id: 2, result: { structuredContent: { queued: true, instance: { state: 'restarting' } } } })
  await waitForState(patient.app, admin.token, id, ['running'])

  const streamed = await fetch(`${address}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders(accessToken, '2025-06-18'),
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'restart_instance', arguments: { instance_id: id }, _meta: { progressToken: 'p-1' } } })
  })
  t.match(streamed.headers.get('content-type'), /^text\/event-stream/)
  const events = (await streamed.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
  const notes = events.filter((event) => event.method === 'notifications/progress')
  t.ok(notes.length >= 1 && notes.every((note) => note.params.progressToken === 'p-1'), 'progress notifications for this token')
  t.match(events.at(-1), { id: 3, result: { structuredContent: { instance: { state: 'running' }, wait: { finished: true } } } }, 'then the result, last')
})

t.test('a client that goes away stops the waiting, not the job; the call is recorded with its own duration', async (t) => {
  const { admin, accessToken, address } = await agentOn(patient)
  const subdomain = uniqueSubdomain('gone')
  kube.holdNotReady(`erp-${admin.subdomain}`, `erp-${subdomain}`, { reason: 'ContainerCreating' })
  const leave = new AbortController()
  const response = await fetch(`${address}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders(accessToken),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_instance', arguments: { name: 'Gone', subdomain, erp_version: '17.0', backend: 'kubernetes' }, _meta: { progressToken: 'bye' } } }),
    signal: leave.signal
  })
  const reader = response.body!.getReader()
  const { value } = await reader.read()
  t.match(new TextDecoder().decode(value), /notifications\/progress/, 'the wait began')
  const left = Date.now()
  leave.abort()
  const [call] = await waitFor(async () => {
    const rows = await patient.app.sql<{ outcome: string, duration_ms: number }>({ text: "SELECT outcome, duration_ms FROM agent_tool_calls WHERE tenant_id = $1 AND tool = 'create_instance'", values: [admin.user.tenant_id] })
    return rows.length === 1 ? rows : undefined
  }, { timeoutMs: 10_000, intervalMs: 100 })
  t.ok(Date.now() - left < 5000, 'recorded soon after the client left, not after MCP_PROGRESS_MAX_SECONDS')
  t.equal(call!.outcome, 'ok')
  t.ok(call!.duration_ms < 10_000, `${call!.duration_ms} ms`)
  const [instance] = await patient.app.sql<{ id: number, state: string }>({ text: 'SELECT id, state FROM instances WHERE subdomain = $1', values: [subdomain] })
  t.equal(instance?.state, 'provisioning', 'the job goes on')
  kube.releaseHold(`erp-${admin.subdomain}`, `erp-${subdomain}`)
  await waitForState(patient.app, admin.token, Number(instance!.id), ['running'])
})
