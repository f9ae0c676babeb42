import t, { type Test } from 'tap'
import { signup } from '../support/accounts.ts'
import { mcpHeaders, rpc, startMcpFixture } from '../support/mcp.ts'
import { assertToolError, tenantSnapshot, useTool } from './tool-helpers.ts'

const { app, connectAgent } = await startMcpFixture(t)
const person = await signup(app)
const { accessToken: token } = await connectAgent(person, 'Protocol tester')

const post = (payload: unknown, headers: Record<string, string> = mcpHeaders(token)) =>
  app.inject({ method: 'POST', url: '/api/mcp', headers, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })

const initialize = (protocolVersion: string) => post(
  { jsonrpc: '2.0', id: 'init-1', method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'protocol-test', version: '1.0.0' } } },
  mcpHeaders(token, protocolVersion)
)

/** A JSON-RPC error answer: no result, `id` null when the request could not be read. */
function assertRpcError (t: Test, response: Awaited<ReturnType<typeof post>>, status: number, code: number, label: string): void {
  t.equal(response.statusCode, status, `${label}: HTTP ${status}`)
  t.match(response.headers['content-type'], /^application\/json/, `${label}: JSON`)
  const body = response.json()
  t.equal(body.jsonrpc, '2.0', `${label}: a JSON-RPC message`)
  t.equal(body.error?.code, code, `${label}: error code ${code}`)
  t.type(body.error?.message, 'string', `${label}: a message`)
  t.notOk('result' in body, `${label}: no result`)
  t.notOk('success' in body, `${label}: not the REST envelope`)
}

t.test('initialize negotiates 2025-11-25 and 2025-06-18, and answers its latest to anything else', async (t) => {
  for (const version of ['2025-11-25', '2025-06-18']) {
    const response = await initialize(version)
    t.equal(response.statusCode, 200, version)
    const { id, result } = response.json()
    t.equal(id, 'init-1', 'the request id is echoed')
    t.equal(result.protocolVersion, version, `${version} is echoed`)
    t.match(result.serverInfo, { name: 'erp-portal', version: String })
    t.same(result.capabilities.tools, { listChanged: false }, 'tools offered, with no change notifications')
    t.match(result.instructions, /whoami/, 'instructions point the agent at whoami')
  }
  const unsupported = await initialize('2024-01-01')
  t.equal(unsupported.statusCode, 200)
  t.equal(unsupported.json().result.protocolVersion, '2025-11-25', 'the server proposes its latest version')
})

t.test('requests after initialize carry either supported version; another one is refused', async (t) => {
  for (const version of ['2025-11-25', '2025-06-18']) {
    const response = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, mcpHeaders(token, version))
    t.equal(response.statusCode, 200, version)
    t.ok(response.json().result.tools.length > 0, `${version}: tools listed`)
  }
  assertRpcError(t, await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, mcpHeaders(token, '1999-01-01')), 400, -32000, 'unsupported MCP-Protocol-Version header')
})

t.test('a notification is accepted with 202 and an empty body', async (t) => {
  const response = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  t.equal(response.statusCode, 202)
  t.equal(response.body, '')
})

t.test('bodies that are not JSON-RPC are JSON-RPC errors, not the REST envelope', async (t) => {
  assertRpcError(t, await post('{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700, 'invalid JSON')
  assertRpcError(t, await post({ hello: 'world' }), 400, -32600, 'an object that is not JSON-RPC')
  assertRpcError(t, await post({ jsonrpc: '1.0', id: 1, method: 'tools/list' }), 400, -32600, 'the wrong jsonrpc version')
  assertRpcError(t, await post('"tools/list"'), 400, -32600, 'a JSON string')
  t.equal((await post('{not json')).json().id, null, 'id is null when the request could not be read')
})

t.test('transport rules: Accept must list both types, the body must be JSON', async (t) => {
  const { accept: _accept, ...withoutAccept } = mcpHeaders(token)
  assertRpcError(t, await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, withoutAccept), 406, -32000, 'no Accept')
  assertRpcError(t, await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...mcpHeaders(token), accept: 'application/json' }), 406, -32000, 'Accept without text/event-stream')
  for (const type of ['text/plain', 'application/xml']) {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { ...mcpHeaders(token), 'content-type': type })
    t.equal(response.statusCode, 415, `${type}: 415, not a server error (${response.body})`)
    t.equal(response.json().jsonrpc, '2.0', `${type}: a JSON-RPC error`)
    t.type(response.json().error?.code, 'number', `${type}: with a JSON-RPC code`)
  }
})

t.test('an unknown method is -32601 and an unknown tool -32602, both protocol errors', async (t) => {
  const unknownMethod = await rpc(app, token, 'resources/subscribe-everything')
  assertRpcError(t, unknownMethod, 200, -32601, 'unknown method')
  const unknownTool = await rpc(app, token, 'tools/call', { name: 'drop_all_tables', arguments: {} })
  assertRpcError(t, unknownTool, 200, -32602, 'unknown tool')
  t.match(unknownTool.json().error.message, /drop_all_tables/, 'the message names the tool')
})

t.test('GET and DELETE answer 405 with Allow: POST (the endpoint is stateless)', async (t) => {
  const { 'content-type': _type, ...headers } = mcpHeaders(token)
  for (const method of ['GET', 'DELETE'] as const) {
    const response = await app.inject({ method, url: '/api/mcp', headers })
    t.equal(response.statusCode, 405, method)
    t.equal(response.headers.allow, 'POST', `${method}: Allow: POST`)
    t.equal(response.json().error.code, 'METHOD_NOT_ALLOWED', method)
  }
})

t.test('answers carry X-Request-Id and never an Mcp-Session-Id', async (t) => {
  const answers = [
    await initialize('2025-11-25'),
    await rpc(app, token, 'tools/list'),
    await rpc(app, token, 'tools/call', { name: 'whoami', arguments: {} }),
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    await post('{broken')
  ]
  const ids = new Set<string>()
  for (const [index, response] of answers.entries()) {
    t.notOk('mcp-session-id' in response.headers, `answer ${index}: no session id`)
    t.match(response.headers['x-request-id'], /\S/, `answer ${index}: X-Request-Id`)
    ids.add(String(response.headers['x-request-id']))
  }
  t.equal(ids.size, answers.length, 'a new request id per request')
})

t.test('a NUL character in tool arguments is a tool error INVALID_CHARACTER that changes nothing', async (t) => {
  const before = await tenantSnapshot(app, person.user.tenant_id)
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ subject: 'Bad\u0000subject', description: 'A description' }, 'subject'],
    [{ subject: 'Fine subject', description: 'Text with \u0000 inside' }, 'description']
  ]
  for (const [args, field] of cases) {
    // useTool goes through callTool, which throws on any HTTP status but 200.
    const error = assertToolError(t, await useTool(app, token, 'create_ticket', args), 'INVALID_CHARACTER', field)
    t.match(error.details.fields, [{ field, in: 'arguments' }], `${field} is named`)
  }
  t.equal(await tenantSnapshot(app, person.user.tenant_id), before, 'no ticket, no activity')
})

t.test('a JSON-RPC batch over real HTTP is Invalid Request (-32600, id null, HTTP 400): 2025-06-18 and later have none', async (t) => {
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const batch = [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]
  for (const version of ['2025-11-25', '2025-06-18']) {
    const response = await fetch(`${address}/api/mcp`, { method: 'POST', headers: mcpHeaders(token, version), body: JSON.stringify(batch) })
    t.equal(response.status, 400, `${version}: HTTP 400`)
    const body = await response.json() as { jsonrpc: string, id: unknown, error: { code: number, message: string }, result?: unknown }
    t.same({ jsonrpc: body.jsonrpc, id: body.id, code: body.error.code }, { jsonrpc: '2.0', id: null, code: -32600 }, `${version}: Invalid Request`)
    t.match(body.error.message, /batch/i, 'the message says why')
    t.notOk('result' in body, 'nothing was run')
  }
})

t.test('tools/call with a name that is not a string or arguments that are not an object: -32602 with one short line', async (t) => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['arguments an array', { name: 'whoami', arguments: [] }, /arguments must be a JSON object/],
    ['arguments a string', { name: 'whoami', arguments: 'x' }, /arguments must be a JSON object/],
    ['arguments null', { name: 'whoami', arguments: null }, /arguments must be a JSON object/],
    ['name a number', { name: 42, arguments: {} }, /name must be the tool's name, a string/],
    ['name an object', { name: { a: 1 } }, /name must be the tool's name, a string/],
    ['name missing', { arguments: {} }, /name must be the tool's name, a string/]
  ]
  for (const [label, params, message] of cases) {
    const response = await post({ jsonrpc: '2.0', id: 'bad-params', method: 'tools/call', params })
    assertRpcError(t, response, 200, -32602, label)
    const { id, error } = response.json()
    t.equal(id, 'bad-params', `${label}: the request id is echoed`)
    t.match(error.message, message, `${label}: ${error.message}`)
    t.ok(error.message.length < 200 && !error.message.includes('\n'), `${label}: short, one line`)
  }
  const list = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 42 } })
  assertRpcError(t, list, 200, -32602, 'tools/list with a cursor that is not a string')
})
