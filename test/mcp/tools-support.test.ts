import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { assertToolError, assertToolSuccess, latestActivity, personName, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const SUPPORT_TOKEN = 'support-token-for-mcp-tests-0123456789abcdef'

const { app, connectAgent } = await startMcpFixture(t, { SUPPORT_API_TOKEN: SUPPORT_TOKEN })
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Support agent')
const adminName = await personName(app, admin)

const closeAsStaff = (id: string) => app.inject({
  method: 'POST', url: `/api/support/tickets/${id}/close`, headers: { 'x-support-token': SUPPORT_TOKEN }, payload: { staff_name: 'Sam from support' }
})

t.test('create_ticket opens a ticket as the person, credited to the agent in the feed', async (t) => {
  const outcome = await useTool(app, token, 'create_ticket', { subject: '  Backups failing  ', description: '  The nightly backup of prod failed.  ' })
  const { ticket } = assertToolSuccess(t, outcome, 'create_ticket')
  t.match(ticket, { subject: 'Backups failing', description: 'The nightly backup of prod failed.', priority: 'normal', status: 'open', message_count: 1 })
  t.match(ticket.created_by, { id: admin.user.id, name: adminName }, 'opened by the person, not by a made-up user')
  t.match(ticket.messages, [{ message: 'The nightly backup of prod failed.', from_support: false, author: { id: admin.user.id } }])
  const rest = await restCall(app, admin.token, 'GET', `/api/tickets/${ticket.id}`)
  t.same(rest.data.ticket, ticket, 'the portal shows exactly what the agent was told')

  const activity = await latestActivity(app, admin, 'ticket.created')
  t.match(activity, { target_type: 'ticket', target_id: ticket.id, actor: { kind: 'agent', id: admin.user.id, name: `Support agent for ${adminName}` } })
})

t.test('reply_to_ticket adds to the thread, reopens a closed ticket, and records the agent', async (t) => {
  const { ticket } = (await useTool(app, token, 'create_ticket', { subject: 'Slow reports', description: 'Reports take minutes.', priority: 'high' })).data
  t.equal((await closeAsStaff(ticket.id)).statusCode, 200, 'support closed it')

  const outcome = await useTool(app, token, 'reply_to_ticket', { ticket_id: ticket.id, message: '  Still slow today.  ' })
  const replied = assertToolSuccess(t, outcome, 'reply_to_ticket').ticket
  t.match(replied, { id: ticket.id, status: 'open', closed_at: null, message_count: 2, priority: 'high' })
  t.match(replied.messages.at(-1), { message: 'Still slow today.', from_support: false, author: { id: admin.user.id } })
  t.same((await restCall(app, admin.token, 'GET', `/api/tickets/${ticket.id}`)).data.ticket, replied, 'the portal shows the same thread')

  for (const type of ['ticket.replied', 'ticket.reopened']) {
    t.match(await latestActivity(app, admin, type), { target_id: ticket.id, actor: { kind: 'agent', name: `Support agent for ${adminName}` } }, type)
  }
})

t.test('list_tickets and get_ticket read the company\'s tickets with filters and pages', async (t) => {
  const member = await addMember(app, admin.user.tenant_id, { name: 'Mia Member' })
  const memberAgent = await connectAgent(member, 'Mia\'s agent')
  const opened = assertToolSuccess(t, await useTool(app, memberAgent.accessToken, 'create_ticket', { subject: 'Urgent: login broken', description: 'Nobody can log in.', priority: 'urgent' }), 'a member opens one')
  t.match(await latestActivity(app, admin, 'ticket.created'), { actor: { kind: 'agent', id: member.user.id, name: 'Mia\'s agent for Mia Member' } })

  const urgent = assertToolSuccess(t, await useTool(app, token, 'list_tickets', { priority: 'urgent' }), 'by priority')
  t.same(urgent.tickets.map((ticket: { id: string }) => ticket.id), [opened.ticket.id], 'the admin sees the member\'s ticket')
  const open = assertToolSuccess(t, await useTool(app, token, 'list_tickets', { status: 'open' }), 'by status')
  t.equal(open.pagination.total, 3)
  const page = assertToolSuccess(t, await useTool(app, token, 'list_tickets', { page: 2, per_page: 2 }), 'page 2')
  t.same(page.pagination, { page: 2, per_page: 2, total: 3 })
  t.equal(page.tickets.length, 1)
  const read = assertToolSuccess(t, await useTool(app, memberAgent.accessToken, 'get_ticket', { ticket_id: opened.ticket.id }), 'get_ticket')
  t.same(read.ticket, opened.ticket)
})

t.test('invalid arguments are VALIDATION_FAILED naming the field, and record nothing', async (t) => {
  const { ticket } = (await useTool(app, token, 'create_ticket', { subject: 'To reply to', description: 'Text' })).data
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['create_ticket', { subject: '  ab  ', description: 'Subject too short once trimmed' }, 'subject'],
    ['create_ticket', { subject: 'No description', description: '    ' }, 'description'],
    ['create_ticket', { subject: 'x'.repeat(201), description: 'Subject too long' }, 'subject'],
    ['create_ticket', { subject: 'Bad priority', description: 'Text', priority: 'asap' }, 'priority'],
    ['create_ticket', { description: 'No subject at all' }, 'subject'],
    ['create_ticket', { subject: 'Extra field', description: 'Text', status: 'closed' }, 'status'],
    ['reply_to_ticket', { ticket_id: ticket.id, message: '   ' }, 'message'],
    ['reply_to_ticket', { ticket_id: 'ticket-1', message: 'Hello' }, 'ticket_id'],
    ['get_ticket', {}, 'ticket_id'],
    ['list_tickets', { per_page: 101 }, 'per_page'],
    ['list_tickets', { status: 'pending' }, 'status']
  ]
  for (const [tool, args, field] of cases) {
    const label = `${tool} ${JSON.stringify(args).slice(0, 50)}`
    const error = assertToolError(t, await useTool(app, token, tool, args), 'VALIDATION_FAILED', label)
    t.ok(error.details.fields.some((f: { field: string }) => f.field === field), `${label}: names ${field}`)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no ticket, message or activity was written')
})

t.test('another company\'s ticket is NOT_FOUND for every ticket tool, and stays as it was', async (t) => {
  const victim = await signup(app)
  const theirs = await restCall(app, victim.token, 'POST', '/api/tickets/create', { subject: 'Private matter', description: 'Only for us' })
  const id = theirs.data.ticket.id as string
  const before = await tenantSnapshot(app, victim.user.tenant_id)
  assertToolError(t, await useTool(app, token, 'get_ticket', { ticket_id: id }), 'TICKET_NOT_FOUND', 'get_ticket')
  assertToolError(t, await useTool(app, token, 'reply_to_ticket', { ticket_id: id, message: 'Let me in' }), 'TICKET_NOT_FOUND', 'reply_to_ticket')
  const listed = await useTool(app, token, 'list_tickets', { per_page: 100 })
  t.notOk(listed.data.tickets.some((ticket: { id: string }) => ticket.id === id), 'not in the list')
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), before, 'the victim\'s ticket, thread and feed are unchanged')
  t.equal((await restCall(app, victim.token, 'GET', `/api/tickets/${id}`)).data.ticket.message_count, 1)
})
