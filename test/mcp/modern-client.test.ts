/**
 * MCP 2026-07-28 with the v2 SDK's own Client over real HTTP: discovery, the tools of the
 * grant's level, a read tool, a refusal above the level, and destructive tools confirmed by
 * elicitation (multi round-trip: `input_required`, then the client's retry with the person's
 * answer). delete_instance runs on the fake Kubernetes API server, so an accepted delete really runs;
 * every other answer leaves the company's data as it was, and every round is in the audit trail.
 */
import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../support/instances.ts'
import { fakeKubeApiServer } from '../support/kube/fake-api-server.ts'
import { kubeBackendEnv, rpc, startMcpFixture } from '../support/mcp.ts'
import { MODERN, mcpUrl, modernClient, type ElicitationAnswer } from '../support/mcp-modern.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { captureLog } from '../support/log-capture.ts'
import { restCall, tenantSnapshot } from './tool-helpers.ts'

const kube = await fakeKubeApiServer(t, { readyDelayMs: 100, jobRunMs: 0 })
const { lines, logger } = captureLog()
const { app, connectAgent, databaseUrl } = await startMcpFixture(t, kubeBackendEnv(t, kube.kubeconfigText), { logger })
t.teardown(() => cleanupInstances(databaseUrl))
const url = await mcpUrl(app)
const admin = await signup(app)
const agent = await connectAgent(admin, 'Modern agent')

type Answer = { isError?: boolean, structuredContent?: Record<string, any> }
const codeOf = (answer: Answer) => answer.isError === true ? answer.structuredContent?.error?.code : `no error: ${JSON.stringify(answer.structuredContent).slice(0, 200)}`

const audit = async (grantId: string, tool: string) => (await app.sql<{ outcome: string }>({
  text: 'SELECT outcome FROM agent_tool_calls WHERE grant_id = $1 AND tool = $2 ORDER BY id', values: [grantId, tool]
})).map((row) => row.outcome)

async function runningInstance (prefix: string): Promise<{ id: number, subdomain: string }> {
  const subdomain = uniqueSubdomain(prefix)
  const created = await restCall(app, admin.token, 'POST', '/api/instances/create', { name: 'Asked first', subdomain, erp_version: '17.0', backend: 'kubernetes' })
  const id = created.data.instance.id as number
  await waitForState(app, admin.token, id, ['running'])
  return { id, subdomain }
}

t.test('the client discovers the server and lists the grant\'s tools: the same as a 2025 client of that grant', async (t) => {
  const { client } = await modernClient(url, agent.accessToken)
  t.teardown(() => client.close())
  const discovered = client.getDiscoverResult()
  t.same(discovered?.supportedVersions, [MODERN])
  t.match(client.getServerVersion(), { name: 'erp-portal' })
  t.ok(client.getServerCapabilities()?.tools, 'tools offered')
  t.match(client.getInstructions(), /whoami/)

  const reader = await connectAgent(admin, 'Reading agent', { level: 'read', instanceIds: null })
  const { client: readClient } = await modernClient(url, reader.accessToken)
  t.teardown(() => readClient.close())
  const names = (await readClient.listTools()).tools.map((tool) => tool.name)
  t.ok(names.includes('list_instances') && names.includes('whoami'), 'reads are listed')
  t.notOk(names.includes('stop_instance') || names.includes('delete_instance'), 'writes are not')
  const legacy = (await rpc(app, reader.accessToken, 'tools/list')).json().result.tools.map((tool: { name: string }) => tool.name)
  t.same(names, legacy, 'one registry: the same list on both revisions')

  const whoami = await readClient.callTool({ name: 'whoami', arguments: {} }) as Answer
  t.notOk(whoami.isError)
  t.match(whoami.structuredContent, { user: { id: admin.user.id }, agent: { client_name: 'Reading agent' } })
  const id = await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  t.equal(codeOf(await readClient.callTool({ name: 'start_instance', arguments: { instance_id: id } }) as Answer), 'AGENT_LEVEL_TOO_LOW', 'a tool above the level is refused by name')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'and changes nothing')
  t.same(await audit(reader.grantId, 'start_instance'), ['AGENT_LEVEL_TOO_LOW'], 'the refusal is recorded')
})

t.test('delete_instance asks the person for the subdomain; typed right, the instance is deleted', async (t) => {
  const { id, subdomain } = await runningInstance('mdel')
  const { client, asked } = await modernClient(url, agent.accessToken, () => ({ action: 'accept', content: { subdomain } }))
  t.teardown(() => client.close())
  const deleted = await client.callTool({ name: 'delete_instance', arguments: { instance_id: id } }) as Answer
  t.notOk(deleted.isError, codeOf(deleted))
  t.match(deleted.structuredContent, { queued: true, instance: { id, state: 'deleting' } })
  t.equal(asked.length, 1, 'asked once')
  t.match(asked[0], { mode: 'form', message: new RegExp(`removes its ERP, its database and its files for good\\. To go ahead, type the instance's subdomain, ${subdomain}\\.`) })
  t.same(asked[0]!.requestedSchema.required, ['subdomain'])
  t.match(asked[0]!.requestedSchema.properties.subdomain, { type: 'string', title: 'Instance subdomain' })
  await waitForState(app, admin.token, id, ['deleted'])
  t.same(await audit(agent.grantId, 'delete_instance'), ['input_required', 'ok'], 'both rounds recorded')
})

t.test('declined, dismissed or answered wrong: nothing changes, and the refusal is recorded', async (t) => {
  const subdomain = uniqueSubdomain('mkeep')
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'stopped', subdomain })
  const answers: Array<[ElicitationAnswer, string]> = [
    [{ action: 'decline' }, 'CONFIRMATION_DECLINED'],
    [{ action: 'cancel' }, 'CONFIRMATION_CANCELLED'],
    [{ action: 'accept', content: { subdomain: `${subdomain}x` } }, 'CONFIRMATION_REFUSED'],
    [{ action: 'accept', content: { subdomain: subdomain.toUpperCase() } }, 'CONFIRMATION_REFUSED']
  ]
  const grant = await connectAgent(admin, 'Hesitant agent')
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  for (const [answer, code] of answers) {
    const { client, asked } = await modernClient(url, grant.accessToken, () => answer)
    const refused = await client.callTool({ name: 'delete_instance', arguments: { instance_id: id } }) as Answer
    await client.close()
    t.equal(codeOf(refused), code, `${JSON.stringify(answer)}: ${code}`)
    t.equal(asked.length, 1, 'the person was asked')
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no state change, no job, no activity')
  t.same(await audit(grant.grantId, 'delete_instance'), answers.flatMap(([, code]) => ['input_required', code]))
})

t.test('restore_backup and delete_backup ask too; restore\'s wrong answer is the route\'s BACKUP_CONFIRMATION_MISMATCH', async (t) => {
  const subdomain = uniqueSubdomain('mbak')
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'stopped', subdomain })
  const [row] = await app.sql<{ id: string }>({
    text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, created_at, updated_at) VALUES ($1, $2, 'completed', 'manual', '17.0', 1, now(), now()) RETURNING id",
    values: [admin.user.tenant_id, id]
  })
  const backupId = Number(row!.id)
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const { client, asked } = await modernClient(url, agent.accessToken, () => ({ action: 'accept', content: { subdomain: 'not-it' } }))
  t.teardown(() => client.close())
  t.equal(codeOf(await client.callTool({ name: 'restore_backup', arguments: { instance_id: id, backup_id: backupId } }) as Answer), 'BACKUP_CONFIRMATION_MISMATCH')
  t.match(asked[0]?.message, new RegExp(`^Restoring backup #${backupId} replaces the instance's database and filestore`))
  t.equal(codeOf(await client.callTool({ name: 'delete_backup', arguments: { instance_id: id, backup_id: backupId } }) as Answer), 'CONFIRMATION_REFUSED')
  t.match(asked[1]?.message, new RegExp(`^Deleting backup #${backupId} removes its archive for good`))
  t.equal(codeOf(await client.callTool({ name: 'delete_backup', arguments: { instance_id: id, backup_id: backupId + 1000 } }) as Answer), 'BACKUP_NOT_FOUND', 'a missing backup is not asked about')
  t.equal(asked.length, 2)
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')
})

t.test('level and role come first: nobody is asked for what the agent may not do; without elicitation, `confirm` rules', async (t) => {
  const subdomain = uniqueSubdomain('mrole')
  const id = await recordInstance(app, admin.user.tenant_id, { backend: 'kubernetes', state: 'stopped', subdomain })
  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member agent')
  const operator = await connectAgent(admin, 'Operating agent', { level: 'operate', instanceIds: null })
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const cases: Array<[string, string]> = [[memberAgent.accessToken, 'FORBIDDEN'], [operator.accessToken, 'AGENT_LEVEL_TOO_LOW']]
  for (const [token, code] of cases) {
    const { client, asked } = await modernClient(url, token, () => ({ action: 'accept', content: { subdomain } }))
    t.equal(codeOf(await client.callTool({ name: 'delete_instance', arguments: { instance_id: id } }) as Answer), code)
    t.equal(asked.length, 0, `${code}: the person is not asked`)
    await client.close()
  }
  const { client: plain } = await modernClient(url, agent.accessToken)
  t.teardown(() => plain.close())
  const required = await plain.callTool({ name: 'delete_instance', arguments: { instance_id: id } }) as Answer
  t.equal(codeOf(required), 'CONFIRMATION_REQUIRED', 'a client without elicitation is told to pass confirm')
  t.match(required.structuredContent?.error.message, /call delete_instance again with `confirm` set to the instance's subdomain/)
  t.equal(codeOf(await plain.callTool({ name: 'delete_instance', arguments: { instance_id: id, confirm: 'nope' } }) as Answer), 'CONFIRMATION_REFUSED')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'nothing changed')

  const { client: eager, asked } = await modernClient(url, agent.accessToken, () => ({ action: 'decline' }))
  t.teardown(() => eager.close())
  const given = await eager.callTool({ name: 'delete_instance', arguments: { instance_id: id, confirm: subdomain } }) as Answer
  t.match(given.structuredContent, { queued: true }, 'a `confirm` sent along is enough: nobody is asked again')
  t.equal(asked.length, 0)
})

t.test('a job tool called with a progressToken streams progress and answers the end state, as on 2025-era requests', async (t) => {
  const { client } = await modernClient(url, agent.accessToken)
  t.teardown(() => client.close())
  const subdomain = uniqueSubdomain('mprog')
  const updates: Array<{ progress: number, total?: number, message?: string }> = []
  const result = await client.callTool({ name: 'create_instance', arguments: { name: 'Followed', subdomain, erp_version: '17.0', backend: 'kubernetes' } },
    { onprogress: (update) => { updates.push(update) } }) as Answer
  t.notOk(result.isError, codeOf(result))
  t.match(result.structuredContent, { instance: { subdomain, state: 'running' }, wait: { finished: true } })
  t.ok(updates.length >= 1, `${updates.length} progress notifications`)
  t.ok(updates.every((update, i) => i === 0 || update.progress > updates[i - 1]!.progress), 'progress only increases')
  t.same(updates.at(-1), { progress: updates.at(-1)!.progress, total: updates.at(-1)!.progress, message: 'Instance running' }, 'the last one is complete')
  t.same(await audit(agent.grantId, 'create_instance'), ['ok'], 'one call recorded')
})

t.test('the portal logged no error: refusals are the client\'s mistake, not a failure', async (t) => {
  t.same(lines.filter((line) => Number(line.level) >= 50).map((line) => line.msg), [])
})
