/**
 * What a person lets a connected agent do, changed in the portal and obeyed by
 * /api/mcp from the agent's next call; and the audit trail of its tool calls.
 */
import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { startMcpFixture } from '../../../support/mcp.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, latestActivity, useTool } from '../../../mcp/tool-helpers.ts'

const fixture = await startMcpFixture(t)
const { app } = fixture
const admin = await signup(app)
const stranger = await signup(app)
const [first, second] = [await recordInstance(app, admin.user.tenant_id, { name: 'Shop' }), await recordInstance(app, admin.user.tenant_id, { name: 'Books' })]
const theirs = await recordInstance(app, stranger.user.tenant_id)

const put = (token: string, id: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: `/api/oauth/grants/${id}`, headers: bearer(token), payload })
/** The audit trail as its person reads it, after the queued read calls are written (mcp/read-audit-buffer.ts). */
const calls = async (token: string, id: string, query = '') => {
  await app.mcpAudit.flush()
  return app.inject({ method: 'GET', url: `/api/oauth/grants/${id}/calls${query}`, headers: bearer(token) })
}

t.test('lowering a grant to read only on one instance applies at the agent\'s next call', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Ops agent')
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: second }), 'administer sees every instance')

  const changed = await put(admin.token, agent.grantId, { level: 'read', instance_ids: [first, first] })
  t.equal(changed.statusCode, 200, changed.body)
  t.match(changed.json().grant, { id: agent.grantId, level: 'read', instance_ids: [first] }, 'duplicates dropped')
  const listed = (await app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(admin.token) })).json().grants
  t.match(listed.find((g: { id: string }) => g.id === agent.grantId), { level: 'read', instance_ids: [first] }, 'the list shows level and instances')
  t.match(await latestActivity(app, admin, 'oauth.grant_access_changed'), { title: new RegExp(` set Ops agent to Read only on instances ${first}$`), actor: { kind: 'user' } }, 'the feed says so')

  const instances = assertToolSuccess(t, await useTool(app, agent.accessToken, 'list_instances'), 'list_instances')
  t.same(instances.instances.map((i: { id: number }) => i.id), [first], 'only the allowed instance is listed')
  const dashboard = assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_dashboard'), 'get_dashboard')
  t.same(dashboard.dashboard.instances.map((i: { id: number }) => i.id), [first], 'the dashboard lists the allowed instance alone')
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: first }), 'the allowed instance reads')
  const other = assertToolError(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: second }), 'INSTANCE_NOT_FOUND', 'another instance')
  const foreign = assertToolError(t, await useTool(app, agent.accessToken, 'get_instance', { instance_id: theirs }), 'INSTANCE_NOT_FOUND', 'another company\'s')
  t.same(other, foreign, 'another instance answers exactly as another company\'s')
  const stop = assertToolError(t, await useTool(app, agent.accessToken, 'stop_instance', { instance_id: first }), 'AGENT_LEVEL_TOO_LOW', 'stop')
  t.match(stop.message, /needs the "Operate" level; this agent was given "Read only"/)
  t.equal((await app.sql<{ state: string }>({ text: 'SELECT state FROM instances WHERE id = $1', values: [first] }))[0]?.state, 'running', 'nothing stopped')

  t.equal((await put(admin.token, agent.grantId, { level: 'operate', instance_ids: null })).statusCode, 200, 'raised again by the person')
  t.equal((await useTool(app, agent.accessToken, 'list_instances')).data.instances.length, 2, 'every instance again')
  assertToolSuccess(t, await useTool(app, agent.accessToken, 'create_ticket', { subject: 'Slow shop', description: 'The shop is slow today.' }), 'operate opens tickets')
  t.match(await latestActivity(app, admin, 'ticket.created'), { actor: { kind: 'agent', calls_url: `/api/oauth/grants/${agent.grantId}/calls` } },
    'the feed entry links the agent\'s audit trail')
  t.notOk((await latestActivity(app, admin, 'oauth.grant_access_changed'))?.actor.calls_url, 'a person\'s entry has no such link')
})

t.test('who may change it, and to what', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Guarded agent')
  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })
  const memberAgent = await fixture.connectAgent(member, 'Member agent', { level: 'operate', instanceIds: null })

  const above = await put(member.token, memberAgent.grantId, { level: 'administer' })
  t.equal(above.statusCode, 403)
  t.equal(above.json().error.code, 'AGENT_LEVEL_ABOVE_ROLE', 'a member\'s agent never administers')
  for (const [label, token, id] of [['a colleague\'s grant', member.token, agent.grantId], ['another company\'s person', stranger.token, agent.grantId], ['no such grant', admin.token, 'nope']] as const) {
    const response = await put(token, id, { level: 'read' })
    t.equal(response.statusCode, 404, label)
    t.equal(response.json().error.code, 'GRANT_NOT_FOUND', label)
  }
  const foreign = await put(admin.token, agent.grantId, { level: 'read', instance_ids: [theirs] })
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND', 'another company\'s instance cannot be chosen')
  t.equal((await put(admin.token, agent.grantId, { level: 'root' })).statusCode, 400, 'an unknown level')
  const byAgent = await put(agent.accessToken, agent.grantId, { level: 'administer' })
  t.equal(byAgent.statusCode, 401, 'an agent token cannot change a grant')
  const level = (await app.sql<{ level: string }>({ text: 'SELECT level FROM oauth_grant_access WHERE grant_id = $1', values: [agent.grantId] }))[0]?.level
  t.equal(level, 'administer', 'none of the refused changes took')
})

t.test('the audit trail: every call, newest first, secrets removed, only for its person', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Audited agent')
  await useTool(app, agent.accessToken, 'whoami')
  await useTool(app, agent.accessToken, 'get_instance', { instance_id: theirs })
  await useTool(app, agent.accessToken, 'add_addon_source', {
    name: 'Private', repository_url: 'https://git.invalid/acme/private.git', token: 'ghp_supersecretvalue', branch: 'main'
  })
  const response = await calls(admin.token, agent.grantId)
  t.equal(response.statusCode, 200, response.body)
  const { calls: rows, total } = response.json()
  t.equal(total, 3)
  t.same(rows.map((c: { tool: string }) => c.tool), ['add_addon_source', 'get_instance', 'whoami'], 'newest first')
  t.equal(rows[1].outcome, 'INSTANCE_NOT_FOUND', 'the error code is the outcome')
  t.equal(rows[2].outcome, 'ok')
  t.equal(rows[0].arguments.token, '[redacted]', 'the token is redacted')
  t.equal(rows[0].arguments.name, 'Private', 'the rest is kept')
  t.match(rows[0], { client_id: agent.clientId, client_name: 'Audited agent' })
  t.ok(Number.isInteger(rows[0].duration_ms) && rows[0].duration_ms >= 0)
  const stored = await app.sql({ text: 'SELECT arguments::text FROM agent_tool_calls WHERE grant_id = $1', values: [agent.grantId] })
  t.notMatch(JSON.stringify(stored), 'supersecret', 'the secret is nowhere in the table')

  const page = (await calls(admin.token, agent.grantId, '?per_page=1&page=2')).json()
  t.same(page.calls.map((c: { tool: string }) => c.tool), ['get_instance'], 'paginated')
  const grant = (await app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(admin.token) })).json().grants
    .find((g: { id: string }) => g.id === agent.grantId)
  t.equal(grant.last_used_at, rows[0].created_at, 'last used = its last tool call')

  const member = await addMember(app, admin.user.tenant_id)
  for (const [label, token] of [['a colleague', member.token], ['another company', stranger.token]] as const) {
    const refused = await calls(token, agent.grantId)
    t.equal(refused.statusCode, 404, label)
    t.equal(refused.json().error.code, 'GRANT_NOT_FOUND', label)
  }
})

t.test('calls older than the retention are pruned by the periodic job', async (t) => {
  const agent = await fixture.connectAgent(admin, 'Old agent')
  await useTool(app, agent.accessToken, 'whoami')
  await useTool(app, agent.accessToken, 'list_instances')
  await app.mcpAudit.flush()
  await app.sql({ text: "UPDATE agent_tool_calls SET created_at = now() - interval '91 days' WHERE grant_id = $1 AND tool = 'whoami'", values: [agent.grantId] })
  const pruned = await app.oauth.calls.pruneNow()
  t.ok(pruned.calls >= 1, 'the old call is deleted')
  t.same((await calls(admin.token, agent.grantId)).json().calls.map((c: { tool: string }) => c.tool), ['list_instances'], 'the recent one stays')
})
