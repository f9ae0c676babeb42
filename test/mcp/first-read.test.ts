/**
 * A hot read tool's first read runs in the statement that checks the agent's
 * token (mcp/agent-actor.ts `findAgentActorWithRead`): one round trip per call,
 * as REST's status and list routes fold the session check. The answers, the
 * refusals and the freshness are those of the two-statement path.
 */
import t from 'tap'
import type { UserActor } from '../../lib/actor.ts'
import type { CallerSql, TenantStatement } from '../../lib/tenant-sql.ts'
import { servingPrefetched } from '../../mcp/prefetched-read.ts'
import { bearer, signup } from '../support/accounts.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { callTool, mcpHeaders, startMcpFixture } from '../support/mcp.ts'
import { envelope, mcpUrl, modernHeaders, rawPost } from '../support/mcp-modern.ts'
import { statementsDuring } from '../support/statements.ts'
import { assertToolError, assertToolSuccess, useTool } from './tool-helpers.ts'

// No audit flush during a test: a read's record would be a statement of its own.
const fixture = await startMcpFixture(t, { MCP_AUDIT_FLUSH_MS: 60_000 })
const { app } = fixture
const admin = await signup(app)
const shop = await recordInstance(app, admin.user.tenant_id, { name: 'Shop', state: 'running' })
const books = await recordInstance(app, admin.user.tenant_id, { name: 'Books', state: 'stopped' })
const stranger = await signup(app)
const theirs = await recordInstance(app, stranger.user.tenant_id, { name: 'Theirs' })
const agent = await fixture.connectAgent(admin, 'Poller')

t.test('get_instance_status: one statement, the agent check and the read together, the answer REST gives', async (t) => {
  let outcome: Awaited<ReturnType<typeof useTool>> | undefined
  const statements = await statementsDuring(app, async () => { outcome = await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: shop }) })
  t.same(statements, ['mcp-agent+instances-status/1'], 'one round trip')
  const rest = await app.inject({ method: 'GET', url: `/api/instances/${shop}/status`, headers: bearer(admin.token) })
  const { success: _, ...restStatus } = rest.json()
  t.same(assertToolSuccess(t, outcome!, 'status').status, restStatus, 'the REST route\'s answer')
})

t.test('list_instances: one statement, and a bound agent still sees its instances alone', async (t) => {
  let outcome: Awaited<ReturnType<typeof useTool>> | undefined
  const statements = await statementsDuring(app, async () => { outcome = await useTool(app, agent.accessToken, 'list_instances') })
  t.same(statements, ['mcp-agent+instances-list/0'], 'one round trip')
  t.same(assertToolSuccess(t, outcome!, 'list').instances.map((row: { id: number }) => row.id).sort(), [shop, books].sort(), 'the company\'s instances')

  const bound = await fixture.connectAgent(admin, 'Shop only', { level: 'read', instanceIds: [shop] })
  const listed = assertToolSuccess(t, await useTool(app, bound.accessToken, 'list_instances'), 'bound list')
  t.same(listed.instances.map((row: { id: number }) => row.id), [shop], 'only the bound instance')
  assertToolError(t, await useTool(app, bound.accessToken, 'get_instance_status', { instance_id: books }), 'INSTANCE_NOT_FOUND', 'outside the binding: not found, though the read ran')
  assertToolError(t, await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: theirs }), 'INSTANCE_NOT_FOUND', 'another company\'s instance')
})

t.test('2026-07-28: the same one statement and the same answer', async (t) => {
  const url = await mcpUrl(app)
  const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_instance_status', arguments: { instance_id: shop }, _meta: envelope() } }
  let answer: Awaited<ReturnType<typeof rawPost>> | undefined
  const statements = await statementsDuring(app, async () => {
    answer = await rawPost(url, modernHeaders(agent.accessToken, 'tools/call', 'get_instance_status'), body)
  })
  t.equal(answer?.status, 200, answer?.text ?? '')
  t.same(statements, ['mcp-agent+instances-status/1'], 'one round trip')
  t.match(answer?.json?.result?.structuredContent, { status: { id: shop } }, 'the instance\'s status')
})

t.test('every call reads afresh: the first read is run for its own call, never kept', async (t) => {
  await app.sql({ text: 'UPDATE instances SET state = \'stopping\', status = NULL WHERE id = $1', values: [shop] })
  t.equal(assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: shop }), 'after').status.state, 'stopping')
  await app.sql({ text: 'UPDATE instances SET state = \'running\' WHERE id = $1', values: [shop] })
  t.equal(assertToolSuccess(t, await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: shop }), 'again').status.state, 'running')
})

t.test('arguments that are not an instance id: no read ahead, the usual validation error', async (t) => {
  const statements = await statementsDuring(app, async () => {
    assertToolError(t, await useTool(app, agent.accessToken, 'get_instance_status', { instance_id: 'shop' }), 'VALIDATION_FAILED')
  })
  t.same(statements, ['mcp-authenticate-agent', 'mcp-record-tool-call'], 'the agent check alone, then the refusal\'s audit record')
})

t.test('a disconnected agent gets 401 with the challenge, from the folded statement too', async (t) => {
  const leaving = await fixture.connectAgent(admin, 'Leaving')
  const deleted = await app.inject({ method: 'DELETE', url: `/api/oauth/grants/${leaving.grantId}`, headers: bearer(admin.token) })
  t.equal(deleted.statusCode, 200, 'disconnected')
  for (const [name, args] of [['get_instance_status', { instance_id: shop }], ['list_instances', {}], ['whoami', {}]] as const) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: mcpHeaders(leaving.accessToken),
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }
    })
    t.equal(response.statusCode, 401, `${name}: 401`)
    t.match(response.headers['www-authenticate'], /error="invalid_token"/, `${name}: the challenge`)
  }
  const answer = await callTool(app, agent.accessToken, 'get_instance_status', { instance_id: shop })
  t.notOk(answer.result?.isError, 'the other agent is untouched')
})

t.test('servingPrefetched: the same statement and values once, anything else from the database', async (t) => {
  const actor = { kind: 'agent', userId: 'u', tenantId: 't' } as UserActor
  const status: TenantStatement = { name: 'instances-status', text: '' }
  const asked: string[] = []
  const database: CallerSql = async <Row>(statement: TenantStatement, values: unknown[] = []) => {
    asked.push(`${statement.name}:${values.join(',')}`)
    return { actor, rows: [{ from: 'database' }] as Row[] }
  }
  const read = servingPrefetched(database, actor, { statement: status, values: [7], rows: [{ from: 'ahead' }] })
  t.same((await read(status, [8])).rows, [{ from: 'database' }], 'other values: the database')
  t.same((await read({ name: 'instances-list', text: '' }, [])).rows, [{ from: 'database' }], 'another statement: the database')
  t.same((await read(status, ['7'])).rows, [{ from: 'ahead' }], 'the same statement and values (as text or number): the rows read ahead')
  t.same((await read(status, [7])).rows, [{ from: 'database' }], 'once: a second read goes to the database')
  t.same(asked, ['instances-status:8', 'instances-list:', 'instances-status:7'])
  t.equal(servingPrefetched(database, actor, undefined), database, 'nothing read ahead: the read as it was')
})
