import t from 'tap'
import { addMember, bearer, signup } from '../support/accounts.ts'
import { callTool, mcpHeaders, rpc, startMcpFixture } from '../support/mcp.ts'
import { refresh, revoke } from '../auth-server/token-support.ts'
import { assertAccepted, assertTokenMissing, assertTokenRefused } from './support-rejection.ts'

/**
 * /api/mcp with tokens the real authorization server issued: what is refused
 * at the door, and how revocation, disconnection, deactivation and suspension
 * take effect on the very next request.
 */
t.test('MCP endpoint authorization', async (t) => {
  const { app, auth, connectAgent } = await startMcpFixture(t)
  const admin = await signup(app)
  const agent = await connectAgent(admin)

  t.test('no Authorization header: 401 with the challenge and no error', async (t) => {
    assertTokenMissing(t, await rpc(app, undefined, 'tools/list'))
  })

  t.test('GET and DELETE need a token too, then answer 405', async (t) => {
    for (const method of ['GET', 'DELETE'] as const) {
      assertTokenMissing(t, await app.inject({ method, url: '/api/mcp', headers: { accept: 'text/event-stream' } }))
      const allowed = await app.inject({ method, url: '/api/mcp', headers: { accept: 'text/event-stream', ...bearer(agent.accessToken) } })
      t.equal(allowed.statusCode, 405, `${method} with a valid token`)
      t.equal(allowed.headers.allow, 'POST')
    }
  })

  const malformed: Record<string, string> = {
    'Basic credentials': `Basic ${Buffer.from('user:password').toString('base64')}`,
    'the bare word Bearer': 'Bearer',
    'a Bearer value with spaces': 'Bearer not a token',
    'three dotted segments that are not a JWT': 'Bearer abc.def.ghi',
    'a valid token followed by junk': `Bearer ${agent.accessToken} extra`,
    'another scheme carrying the valid token': `Token ${agent.accessToken}`
  }
  for (const [name, authorization] of Object.entries(malformed)) {
    t.test(`${name}: 401 invalid_token`, async (t) => {
      const response = await app.inject({ method: 'POST', url: '/api/mcp', headers: { ...mcpHeaders(), authorization }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
      assertTokenRefused(t, response)
    })
  }

  t.test('the portal session token of the same person: 401 invalid_token', async (t) => {
    assertTokenRefused(t, await rpc(app, admin.token, 'tools/list'))
  })

  t.test('a valid access token: 200 for tools/list, acting for its person', async (t) => {
    assertAccepted(t, await rpc(app, agent.accessToken, 'tools/list'))
    const whoami = await callTool(app, agent.accessToken, 'whoami')
    t.match(whoami.result?.structuredContent, { user: { id: admin.user.id, tenant_id: admin.user.tenant_id, role: 'admin' }, agent: { client_name: 'Test agent' } })
  })

  t.test('an access token revoked at /oauth/revoke: 401 on the next request', async (t) => {
    const connected = await connectAgent(admin)
    assertAccepted(t, await rpc(app, connected.accessToken, 'tools/list'))
    t.equal(await revoke(auth, connected.clientId, connected.accessToken), 200)
    assertTokenRefused(t, await rpc(app, connected.accessToken, 'tools/list'))

    const renewed = await refresh(auth, connected.clientId, connected.refreshToken)
    t.equal(renewed.status, 200, 'the grant survives: the refresh token still works')
    assertAccepted(t, await rpc(app, renewed.body.access_token, 'tools/list'))
  })

  t.test('the refresh token revoked: the access token issued with it is refused', async (t) => {
    const connected = await connectAgent(admin)
    assertAccepted(t, await rpc(app, connected.accessToken, 'tools/list'))
    t.equal(await revoke(auth, connected.clientId, connected.refreshToken), 200)
    assertTokenRefused(t, await rpc(app, connected.accessToken, 'tools/list'))
  })

  t.test('the agent disconnected from the portal: its token is refused, other agents keep working', async (t) => {
    const disconnected = await connectAgent(admin, 'Agent to disconnect')
    const kept = await connectAgent(admin, 'Agent that stays')
    assertAccepted(t, await rpc(app, disconnected.accessToken, 'tools/list'))
    const response = await app.inject({ method: 'DELETE', url: `/api/oauth/grants/${disconnected.grantId}`, headers: bearer(admin.token) })
    t.equal(response.statusCode, 200, 'the person disconnects the agent in the portal')
    assertTokenRefused(t, await rpc(app, disconnected.accessToken, 'tools/list'))
    assertAccepted(t, await rpc(app, kept.accessToken, 'tools/list'))
  })

  t.test('the person deactivated by an admin: their token is refused at once', async (t) => {
    const member = await addMember(app, admin.user.tenant_id)
    const connected = await connectAgent(member)
    assertAccepted(t, await rpc(app, connected.accessToken, 'tools/list'))
    const response = await app.inject({ method: 'DELETE', url: `/api/users/${member.user.id}`, headers: bearer(admin.token) })
    t.equal(response.statusCode, 200, 'another admin deactivates the person')
    assertTokenRefused(t, await rpc(app, connected.accessToken, 'tools/list'))
  })

  t.test('the company suspended: its people\'s tokens are refused', async (t) => {
    const company = await signup(app)
    const connected = await connectAgent(company)
    assertAccepted(t, await rpc(app, connected.accessToken, 'tools/list'))
    await app.sql({ text: "UPDATE tenants SET status = 'suspended' WHERE id = $1", values: [company.user.tenant_id] })
    assertTokenRefused(t, await rpc(app, connected.accessToken, 'tools/list'))
  })

  t.test('the role comes from the portal record: a demoted admin\'s agent loses admin tools', async (t) => {
    const member = await addMember(app, admin.user.tenant_id, { role: 'admin' })
    const connected = await connectAgent(member)
    const before = await callTool(app, connected.accessToken, 'list_users')
    t.notOk(before.result?.isError, 'list_users works while the person is an admin')

    const demoted = await app.inject({ method: 'PUT', url: `/api/users/${member.user.id}/role`, headers: bearer(admin.token), payload: { role: 'user' } })
    t.equal(demoted.statusCode, 200, 'the admin demotes the person through the route')

    const after = await callTool(app, connected.accessToken, 'list_users')
    t.equal(after.result?.isError, true, 'the same token now gets a tool error')
    t.equal(after.result?.structuredContent.error.code, 'FORBIDDEN')
    const whoami = await callTool(app, connected.accessToken, 'whoami')
    t.equal(whoami.result?.structuredContent.user.role, 'user')
  })

  t.test('the tenant comes from the portal record: another company\'s data stays out of reach', async (t) => {
    const other = await signup(app)
    const created = await app.inject({ method: 'POST', url: '/api/tickets/create', headers: bearer(admin.token), payload: { subject: 'Invoices are wrong', description: 'The March invoice lists two plans.' } })
    t.equal(created.statusCode, 201, 'a ticket of our company')
    const ticketId = created.json().ticket.id as string

    const otherAgent = await connectAgent(other)
    const theirs = await callTool(app, otherAgent.accessToken, 'create_ticket', { subject: 'Backups', description: 'How often are backups taken?' })
    const listed = await callTool(app, otherAgent.accessToken, 'list_tickets')
    const ids = (listed.result?.structuredContent.tickets as Array<{ id: string }>).map((ticket) => ticket.id)
    t.same(ids, [theirs.result?.structuredContent.ticket.id], 'the other company lists its own ticket only')
    const read = await callTool(app, otherAgent.accessToken, 'get_ticket', { ticket_id: ticketId })
    t.equal(read.result?.isError, true)
    t.equal(read.result?.structuredContent.error.code, 'TICKET_NOT_FOUND', 'another company\'s ticket id is not found')

    const own = await callTool(app, agent.accessToken, 'get_ticket', { ticket_id: ticketId })
    t.equal(own.result?.structuredContent.ticket?.id, ticketId, 'while our own agent reads it')
  })
})
