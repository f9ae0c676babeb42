/**
 * MCP 2026-07-28 on the wire (raw HTTP): server/discover, the cache fields and resultType, the
 * Mcp-Method / Mcp-Name headers checked against the body, the version in `_meta`, and the shared
 * front (token, origin, batch, request id) the 2025-era requests keep. 2025-era answers stay as they were.
 */
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { signup } from '../support/accounts.ts'
import { mcpHeaders, rpc, startMcpFixture } from '../support/mcp.ts'
import { envelope, MODERN, mcpUrl, modernHeaders, rawPost } from '../support/mcp-modern.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { captureLog } from '../support/log-capture.ts'
import { ALL_TOOLS } from '../../mcp/tools/index.ts'
import { tenantSnapshot } from './tool-helpers.ts'

const { lines, logger } = captureLog()
const { app, connectAgent } = await startMcpFixture(t, {}, { logger })
const url = await mcpUrl(app)
const person = await signup(app)
const agent = await connectAgent(person, 'Raw modern agent')
const token = agent.accessToken
let nextId = 1

const request = (method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope(capabilities) } })

// Successful reads wait in the audit buffer: written first, so that none lands later; in the order the calls were made.
const auditRows = async () => {
  await app.mcpAudit.flush()
  return (await app.sql<{ tool: string, outcome: string }>({
    text: 'SELECT tool, outcome FROM agent_tool_calls WHERE grant_id = $1 ORDER BY created_at, id', values: [agent.grantId]
  })).map(({ tool, outcome }) => `${tool} ${outcome}`)
}

/** A protocol error answer with its HTTP status and JSON-RPC code; nothing else. */
function assertRefused (t: Test, answer: Awaited<ReturnType<typeof rawPost>>, status: number, code: number, label: string): Record<string, any> {
  t.equal(answer.status, status, `${label}: HTTP ${status}`)
  t.equal(answer.json?.error?.code, code, `${label}: code ${code} (${answer.text.slice(0, 200)})`)
  t.notOk(answer.json !== undefined && 'result' in answer.json, `${label}: no result`)
  return answer.json?.error ?? {}
}

t.test('server/discover answers the server, its capabilities, instructions and the revisions it serves', async (t) => {
  const answer = await rawPost(url, modernHeaders(token, 'server/discover'), request('server/discover'))
  t.equal(answer.status, 200)
  const { result } = answer.json
  t.same(result.supportedVersions, [MODERN], 'the 2026-07-28 revision (2025 ones are negotiated by initialize)')
  t.same(result.capabilities, { tools: { listChanged: false }, extensions: { 'io.modelcontextprotocol/tasks': {} } }, 'tools, and the Tasks extension')
  t.match(result.instructions, /Start with whoami.*form elicitation/)
  t.match(result._meta['io.modelcontextprotocol/serverInfo'], { name: 'erp-portal', version: String })
  t.equal(result.resultType, 'complete')
  t.same([result.ttlMs, result.cacheScope], [600_000, 'public'], 'the same for every agent')
  t.ok(answer.headers.get('x-request-id'), 'the app\'s reply path: request id')
  t.equal(answer.headers.get('mcp-session-id'), null, 'no session')
})

t.test('tools/list: the grant\'s tools in the registry\'s order, private to the caller, cacheable a minute', async (t) => {
  const first = await rawPost(url, modernHeaders(token, 'tools/list'), request('tools/list'))
  const second = await rawPost(url, modernHeaders(token, 'tools/list'), request('tools/list'))
  t.equal(first.status, 200)
  const { result } = first.json
  t.same(result.tools.map((tool: { name: string }) => tool.name), ALL_TOOLS.map((tool) => tool.name), 'every tool of an Administer grant, as declared')
  t.same(second.json.result.tools, result.tools, 'the same list, in the same order, every time')
  t.equal(result.resultType, 'complete')
  t.same([result.ttlMs, result.cacheScope], [60_000, 'private'], 'the list depends on the grant: never shared across users')

  const legacy = (await rpc(app, token, 'tools/list')).json()
  t.same(legacy.result.tools, result.tools, 'the same tool descriptions as a 2025-11-25 client gets')
  t.notOk('resultType' in legacy.result || 'ttlMs' in legacy.result || 'cacheScope' in legacy.result, '2025-era answers carry none of the new fields')
})

t.test('Mcp-Method and Mcp-Name must be sent and match the body: HeaderMismatch (-32020, HTTP 400), nothing runs', async (t) => {
  const instanceId = await recordInstance(app, person.user.tenant_id, { state: 'stopped' })
  const before = await tenantSnapshot(app, person.user.tenant_id)
  const audited = await auditRows()
  const call = request('tools/call', { name: 'start_instance', arguments: { instance_id: instanceId } })
  const { 'mcp-method': _method, ...withoutMethod } = modernHeaders(token, 'tools/call', 'start_instance')
  assertRefused(t, await rawPost(url, withoutMethod, call), 400, -32020, 'no Mcp-Method')
  assertRefused(t, await rawPost(url, modernHeaders(token, 'tools/list'), call), 400, -32020, 'Mcp-Method names another method')
  assertRefused(t, await rawPost(url, modernHeaders(token, 'tools/call'), call), 400, -32020, 'no Mcp-Name on a tools/call')
  assertRefused(t, await rawPost(url, modernHeaders(token, 'tools/call', 'whoami'), call), 400, -32020, 'Mcp-Name names another tool')
  t.equal(await tenantSnapshot(app, person.user.tenant_id), before, 'the instance was not started')
  t.same(await auditRows(), audited, 'no tool ran, so no call was recorded')
  t.equal((await rawPost(url, modernHeaders(token, 'tools/call', 'whoami'), request('tools/call', { name: 'whoami' }))).status, 200, 'matching headers pass')
})

t.test('a revision the server does not serve is UnsupportedProtocolVersion (-32022) naming the supported ones', async (t) => {
  const answer = await rawPost(url, modernHeaders(token, 'tools/list', undefined, '2099-01-01'),
    { jsonrpc: '2.0', id: 'v1', method: 'tools/list', params: { _meta: envelope({}, '2099-01-01') } })
  const error = assertRefused(t, answer, 400, -32022, 'future revision')
  t.same(error.data, { supported: [MODERN], requested: '2099-01-01' })
  t.equal(answer.json.id, 'v1', 'the request id is echoed')
  const headerOnly = await rawPost(url, modernHeaders(token, 'tools/list'), { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
  assertRefused(t, headerOnly, 400, -32602, 'a 2026-07-28 header without the _meta envelope')
})

t.test('an unknown tool is -32602; a failing tool is a result with isError and the REST code', async (t) => {
  const unknown = await rawPost(url, modernHeaders(token, 'tools/call', 'no_such_tool'), request('tools/call', { name: 'no_such_tool' }))
  t.equal(unknown.json.error.code, -32602)
  const missing = await rawPost(url, modernHeaders(token, 'tools/call', 'get_instance'), request('tools/call', { name: 'get_instance', arguments: { instance_id: 999_999 } }))
  t.match(missing.json.result, { resultType: 'complete', isError: true, structuredContent: { success: false, error: { code: 'INSTANCE_NOT_FOUND' } } })
})

t.test('on the wire, a destructive call asks with input_required; a client with only URL elicitation gets the confirm rule', async (t) => {
  const subdomain = `wire-${process.pid}`
  const instanceId = await recordInstance(app, person.user.tenant_id, { state: 'stopped', subdomain })
  const before = await tenantSnapshot(app, person.user.tenant_id)
  const call = (capabilities: Record<string, unknown>, extra: Record<string, unknown> = {}) => rawPost(url, modernHeaders(token, 'tools/call', 'delete_instance'),
    request('tools/call', { name: 'delete_instance', arguments: { instance_id: instanceId }, ...extra }, capabilities))
  const asked = await call({ elicitation: {} })
  t.equal(asked.status, 200)
  const { result } = asked.json
  t.equal(result.resultType, 'input_required')
  t.notOk('isError' in result || 'content' in result, 'a question, not a tool result')
  t.same(Object.keys(result.inputRequests), ['confirm'])
  t.match(result.inputRequests.confirm, { method: 'elicitation/create', params: { mode: 'form', message: new RegExp(`type the instance's subdomain, ${subdomain}`), requestedSchema: { type: 'object', required: ['subdomain'] } } })

  const wrong = await call({ elicitation: {} }, { inputResponses: { confirm: { action: 'accept', content: { subdomain: 'nope' } } } })
  t.match(wrong.json.result, { resultType: 'complete', isError: true, structuredContent: { error: { code: 'CONFIRMATION_REFUSED', details: { field: 'confirm' } } } })
  const urlOnly = await call({ elicitation: { url: {} } })
  t.match(urlOnly.json.result, { resultType: 'complete', isError: true, structuredContent: { error: { code: 'CONFIRMATION_REQUIRED' } } })
  t.equal(await tenantSnapshot(app, person.user.tenant_id), before, 'nothing changed')
  t.same((await auditRows()).slice(-3), ['delete_instance input_required', 'delete_instance CONFIRMATION_REFUSED', 'delete_instance CONFIRMATION_REQUIRED'])
})

t.test('property: whatever the retry carries as the answer, only the typed subdomain goes ahead', async (t) => {
  const subdomain = `prop-${process.pid}`
  const instanceId = await recordInstance(app, person.user.tenant_id, { state: 'stopped', subdomain })
  const before = await tenantSnapshot(app, person.user.tenant_id)
  const answer = fc.oneof(
    fc.string({ maxLength: 45 }).filter((typed) => typed !== subdomain && !typed.includes('\u0000')).map((typed) => ({ action: 'accept', content: { subdomain: typed } })),
    fc.constantFrom({ action: 'decline' }, { action: 'cancel' }, { action: 'accept' }, { action: 'accept', content: { subdomain: 7 } }, { action: 'maybe' }, 'yes', null, [subdomain])
  )
  await fc.assert(fc.asyncProperty(answer, async (given) => {
    const reply = await rawPost(url, modernHeaders(token, 'tools/call', 'delete_instance'),
      request('tools/call', { name: 'delete_instance', arguments: { instance_id: instanceId }, inputResponses: { confirm: given } }, { elicitation: {} }))
    const result = reply.json?.result
    // Refused as a tool error, asked again (an answer that is not an elicitation result), or refused by the SDK: never done.
    return result?.resultType === 'input_required' || result?.isError === true || reply.json?.error !== undefined
  }), { numRuns: 30 })
  t.equal(await tenantSnapshot(app, person.user.tenant_id), before, 'nothing changed')
})

t.test('the front is shared: no token is 401 with the challenge, a foreign origin 403, a batch -32600', async (t) => {
  const { authorization: _token, ...anonymous } = modernHeaders(token, 'tools/list')
  const unauthenticated = await rawPost(url, anonymous, request('tools/list'))
  t.equal(unauthenticated.status, 401)
  t.match(unauthenticated.headers.get('www-authenticate'), /resource_metadata="https:\/\/portal\.example\.test\/\.well-known\/oauth-protected-resource\/api\/mcp"/)
  const foreign = await rawPost(url, { ...modernHeaders(token, 'tools/list'), origin: 'https://evil.example' }, request('tools/list'))
  t.equal(foreign.status, 403)
  t.equal(foreign.json.error.code, 'ORIGIN_NOT_ALLOWED')
  const batch = await rawPost(url, modernHeaders(token, 'tools/list'), [request('tools/list'), request('tools/list')])
  t.same([batch.status, batch.json.error.code, batch.json.id], [400, -32600, null])
})

t.test('2025-era requests take the 2025 path: initialize, and a 2025 version header without _meta', async (t) => {
  const init = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: mcpHeaders(token, '2025-06-18'),
    payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }
  })
  t.equal(init.json().result.protocolVersion, '2025-06-18')
  const unknownVersion = await app.inject({ method: 'POST', url: '/api/mcp', headers: mcpHeaders(token, '1999-01-01'), payload: { jsonrpc: '2.0', id: 7, method: 'tools/list' } })
  t.same([unknownVersion.statusCode, unknownVersion.json().error.code], [400, -32000], 'an unknown header version without _meta is refused as before')
})

t.test('the portal logged no error: refusals are the client\'s mistake, not a failure', async (t) => {
  t.same(lines.filter((line) => Number(line.level) >= 50).map((line) => line.msg), [])
})
