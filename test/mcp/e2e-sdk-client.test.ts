/**
 * End to end: the MCP SDK's own Client and StreamableHTTPClientTransport,
 * authorised by the SDK's OAuth support against the real authorization server
 * behind the portal's one origin (test/support/single-origin.ts); the person's
 * login and consent are played by test/support/mcp-oauth-provider.ts.
 */
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { addMember, bearer, signup } from '../support/accounts.ts'
import { mcpHeaders } from '../support/mcp.ts'
import { BrowserOAuthProvider } from '../support/mcp-oauth-provider.ts'
import { startSingleOrigin } from '../support/single-origin.ts'
import { instanceRow, recordInstance } from '../support/instance-rows.ts'
import { latestActivity, tenantSnapshot } from './tool-helpers.ts'
import { ALL_TOOLS } from '../../mcp/tools/index.ts'

// Every tool the registry defines (test/mcp/tools-catalog.test.ts names them one by one, read or write).
const TOOLS = ALL_TOOLS.map((tool) => tool.name)

const so = await startSingleOrigin(t)
const { origin, person } = so
const endpoint = new URL(so.mcpResource)

/** What an agent does on first use: connect, get 401, send the person to sign in, redeem the code, connect again. */
async function connectThroughOAuth (provider: BrowserOAuthProvider) {
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider })
  const refused = await new Client({ name: 'e2e-sdk', version: '1.0.0' }).connect(first).then(() => undefined, (error: unknown) => error)
  if (!(refused instanceof UnauthorizedError)) throw new Error('the first connect should stop at the sign-in', { cause: refused })
  await first.finishAuth(provider.authorizationCode())
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider })
  const client = new Client({ name: 'e2e-sdk', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, transport, refused }
}

type ToolAnswer = { isError?: boolean, structuredContent?: Record<string, any> }
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => await client.callTool({ name, arguments: args }) as ToolAnswer
const errorCode = (answer: ToolAnswer) => answer.isError === true ? answer.structuredContent?.error?.code : `no error: ${JSON.stringify(answer.structuredContent)}`

const admin = new BrowserOAuthProvider(so, 'SDK agent')
const { client, transport, refused } = await connectThroughOAuth(admin)

t.test('the SDK discovers the server, registers, sends the person to sign in and connects with the code', async (t) => {
  t.type(refused, UnauthorizedError, 'the first connect stops at the 401 until the person has signed in')
  t.equal(admin.authorizationUrls.length, 1, 'one sign-in')
  const authorize = admin.authorizationUrls[0]!
  t.equal(authorize.origin + authorize.pathname, `${origin}/oauth/authorize`, 'on the public origin, from the metadata')
  t.match(Object.fromEntries(authorize.searchParams), {
    client_id: admin.clientInformation()?.client_id, resource: so.mcpResource, scope: 'mcp', code_challenge_method: 'S256', response_type: 'code'
  })
  t.match(admin.tokens(), { token_type: /^bearer$/i, scope: 'mcp', refresh_token: String })
  t.equal(transport.protocolVersion, '2025-11-25', 'the SDK negotiates the newest protocol')
  t.ok(client.getServerCapabilities()?.tools, 'the server offers tools')
})

t.test('tools/list has every tool and whoami is the person who signed in', async (t) => {
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name).sort(), [...TOOLS].sort())
  const whoami = await call(client, 'whoami')
  t.notOk(whoami.isError)
  t.match(whoami.structuredContent, {
    user: { id: person.user.id, email: person.email, role: 'admin', tenant_id: person.user.tenant_id }, agent: { client_name: 'SDK agent' }
  })
})

t.test('another company\'s instance is NOT FOUND and stays as it was; the own one is listed', async (t) => {
  const own = await recordInstance(so.app, person.user.tenant_id)
  const other = await signup(so.app)
  const foreign = await recordInstance(so.app, other.user.tenant_id)
  const rowBefore = await instanceRow(so.app, foreign)
  const tenantBefore = await tenantSnapshot(so.app, other.user.tenant_id)

  const listed = await call(client, 'list_instances')
  t.same(listed.structuredContent?.instances.map((instance: { id: string }) => instance.id), [own], 'only the company\'s own instance')
  t.equal(errorCode(await call(client, 'get_instance', { instance_id: foreign })), 'INSTANCE_NOT_FOUND')
  t.equal(errorCode(await call(client, 'stop_instance', { instance_id: foreign })), 'INSTANCE_NOT_FOUND')
  t.same(await instanceRow(so.app, foreign), rowBefore, 'the other company\'s instance row is unchanged')
  t.equal(await tenantSnapshot(so.app, other.user.tenant_id), tenantBefore, 'and nothing else of theirs changed')
})

t.test('role rules: a member\'s own agent is refused the team tools, the admin\'s agent gets the team', async (t) => {
  const member = await addMember(so.app, person.user.tenant_id, { name: 'Mia Member' })
  const memberProvider = new BrowserOAuthProvider({ person: member }, 'Member agent')
  const { client: memberClient } = await connectThroughOAuth(memberProvider)
  t.match((await call(memberClient, 'whoami')).structuredContent, { user: { id: member.user.id, role: 'user' } })
  t.equal(errorCode(await call(memberClient, 'list_users')), 'FORBIDDEN')

  const listed = await call(client, 'list_users')
  t.notOk(listed.isError)
  t.same(listed.structuredContent?.users.map((user: { id: string }) => user.id).sort(), [person.user.id, member.user.id].sort())
})

t.test('a ticket the agent opens shows in the person\'s activity feed as the agent\'s doing', async (t) => {
  const created = await call(client, 'create_ticket', { subject: 'Backups failing', description: 'Opened by an agent over MCP' })
  t.notOk(created.isError)
  const ticketId = created.structuredContent?.ticket.id
  t.ok(ticketId)
  t.match(await latestActivity(so.app, person, 'ticket.created'), {
    target_id: ticketId, actor: { kind: 'agent', id: person.user.id, name: `SDK agent for ${so.personName}` }
  })
})

t.test('an access token the server refuses is replaced through the refresh token, without a new sign-in', async (t) => {
  const before = admin.tokens()!
  const spoiled = admin.spoilAccessToken()
  const refusedDirectly = await fetch(endpoint, { method: 'POST', headers: mcpHeaders(spoiled), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
  t.equal(refusedDirectly.status, 401, 'the spoiled token is refused')

  const whoami = await call(client, 'whoami')
  t.match(whoami.structuredContent, { user: { id: person.user.id } }, 'the call goes through')
  const after = admin.tokens()!
  t.not(after.access_token, spoiled)
  t.not(after.access_token, before.access_token, 'a new access token')
  t.not(after.refresh_token, before.refresh_token, 'the refresh token was rotated')
  t.equal(admin.authorizationUrls.length, 1, 'the person was not asked to sign in again')
})

t.test('an initialize asking for 2025-06-18 gets 2025-06-18', async (t) => {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: mcpHeaders(admin.tokens()!.access_token, '2025-06-18'),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  })
  t.equal(response.status, 200)
  t.match(await response.json(), { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: String } } })
})

t.test('disconnecting the agent in the portal ends its access at the next call', async (t) => {
  const listed = await so.app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(person.token) })
  const grant = listed.json().grants.find((row: { client_name: string }) => row.client_name === 'SDK agent')
  t.ok(grant, 'the portal lists the connected agent')
  const deleted = await so.app.inject({ method: 'DELETE', url: `/api/oauth/grants/${grant.id}`, headers: bearer(person.token) })
  t.equal(deleted.statusCode, 200)

  const lastToken = admin.tokens()!.access_token
  const direct = await fetch(endpoint, { method: 'POST', headers: mcpHeaders(lastToken), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
  t.equal(direct.status, 401)
  t.match(direct.headers.get('www-authenticate'), /^Bearer error="invalid_token", resource_metadata="/)

  admin.interactive = false // nobody is there to sign in again
  const failure = await call(client, 'whoami').then(() => undefined, (error: unknown) => error)
  t.type(failure, UnauthorizedError, 'the SDK call fails: the refresh is refused, a new sign-in is needed')
  t.equal(admin.authorizationUrls.length, 2, 'the SDK asked for a new sign-in')
  t.equal(admin.tokens(), undefined, 'the SDK dropped the dead tokens')
})

t.test('the auth server logged no error', async (t) => {
  t.same(so.authServerLog, [])
})
