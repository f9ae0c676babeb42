import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { ISO_DATE, UUID, activities, getTicket, openTicket, replyTo } from './helpers.ts'

const SUMMARY_KEYS = ['closed_at', 'created_at', 'created_by', 'id', 'last_message_at', 'message_count', 'priority', 'status', 'subject', 'updated_at']

t.test('open a ticket: 201 with the ticket, its description as the first message, and an activity record', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const name = (admin.user as unknown as { name: string }).name
  const response = await app.inject({
    method: 'POST',
    url: '/api/tickets/create',
    headers: bearer(admin.token),
    payload: { subject: '  Invoices do not print  ', description: '\nThe PDF is empty.\n', priority: 'urgent' }
  })
  t.equal(response.statusCode, 201)
  const body = response.json()
  t.equal(body.success, true)
  const { ticket } = body
  t.same(Object.keys(ticket).sort(), [...SUMMARY_KEYS, 'description', 'messages'].sort())
  t.match(ticket, {
    id: UUID,
    subject: 'Invoices do not print',
    description: 'The PDF is empty.',
    priority: 'urgent',
    status: 'open',
    message_count: 1,
    created_by: { id: admin.user.id, name },
    created_at: ISO_DATE,
    updated_at: ISO_DATE,
    closed_at: null
  })
  t.equal(ticket.last_message_at, ticket.created_at)
  t.same(ticket.messages, [{
    id: ticket.messages[0].id,
    message: 'The PDF is empty.',
    author: { id: admin.user.id, name },
    from_support: false,
    created_at: ticket.created_at
  }], 'the thread starts with the (trimmed) description')

  const fetched = await getTicket(app, admin.token, ticket.id)
  t.equal(fetched.statusCode, 200)
  t.same(fetched.json(), { success: true, ticket }, 'GET answers the same ticket')

  const defaulted = await openTicket(app, admin.token, { priority: undefined })
  t.equal(defaulted.priority, 'normal', 'priority defaults to normal')

  t.same((await activities(orm, admin.user.tenant_id)).map((row) => [row.type, row.title, row.actor_kind, row.actor_id, row.target_type, row.target_id]), [
    ['ticket.created', `${name} opened ticket "Invoices do not print"`, 'user', admin.user.id, 'ticket', ticket.id],
    ['ticket.created', `${name} opened ticket "Invoices do not print"`, 'user', admin.user.id, 'ticket', defaulted.id]
  ])
})

t.test('any member may reply; the thread grows oldest first', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id, { role: 'user', name: 'Uma User' })
  const ticket = await openTicket(app, admin.token)

  const first = await replyTo(app, member.token, ticket.id, '  It happens with every invoice.  ')
  t.equal(first.statusCode, 200)
  const replied = first.json().ticket
  t.equal(replied.status, 'open')
  t.equal(replied.message_count, 2)
  t.same(replied.messages[1], {
    id: replied.messages[1].id,
    message: 'It happens with every invoice.',
    author: { id: member.user.id, name: 'Uma User' },
    from_support: false,
    created_at: replied.last_message_at
  })
  t.ok(replied.last_message_at > ticket.last_message_at, 'last_message_at moves on')

  const second = (await replyTo(app, admin.token, ticket.id, 'Also credit notes.')).json().ticket
  t.same(second.messages.map((m: { message: string }) => m.message), [ticket.description, 'It happens with every invoice.', 'Also credit notes.'])
  t.same((await getTicket(app, member.token, ticket.id)).json().ticket, second, 'a plain user sees the admin\'s ticket (tenant-wide inbox)')

  const types = (await activities(orm, admin.user.tenant_id)).map((row) => [row.type, row.actor_id])
  t.same(types, [['ticket.created', admin.user.id], ['ticket.replied', member.user.id], ['ticket.replied', admin.user.id]])
})

t.test('list: newest activity first, filters, pagination and list fields', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const oldest = await openTicket(app, admin.token, { subject: 'Oldest', priority: 'low' })
  const middle = await openTicket(app, admin.token, { subject: 'Middle', priority: 'urgent' })
  const newest = await openTicket(app, admin.token, { subject: 'Newest', priority: 'urgent' })
  await replyTo(app, admin.token, oldest.id, 'Any news?')
  await app.supportDesk.reply(app.orm.em, middle.id, 'Sam Support', 'Looking into it.')

  const list = (query = '') => app.inject({ method: 'GET', url: `/api/tickets${query}`, headers: bearer(admin.token) })
  const all = await list()
  t.equal(all.statusCode, 200)
  const body = all.json()
  t.same(body.tickets.map((x: { subject: string }) => x.subject), ['Middle', 'Oldest', 'Newest'], 'ordered by last message')
  t.same(body.pagination, { page: 1, per_page: 25, total: 3 })
  t.same(Object.keys(body.tickets[0]).sort(), SUMMARY_KEYS, 'list items carry no thread')
  t.match(body.tickets[0], { id: middle.id, status: 'answered', message_count: 2, priority: 'urgent' })
  t.match(body.tickets[2], { id: newest.id, status: 'open', message_count: 1 })

  const page2 = (await list('?per_page=2&page=2')).json()
  t.same(page2.tickets.map((x: { id: string }) => x.id), [newest.id])
  t.same(page2.pagination, { page: 2, per_page: 2, total: 3 })
  t.same((await list('?page=9')).json().tickets, [], 'a page past the end is empty')

  t.same((await list('?status=answered')).json().tickets.map((x: { id: string }) => x.id), [middle.id])
  t.same((await list('?status=open&priority=urgent')).json().tickets.map((x: { id: string }) => x.id), [newest.id])
  t.same((await list('?status=closed')).json(), { success: true, tickets: [], pagination: { page: 1, per_page: 25, total: 0 } })
  const urgent = (await list('?priority=urgent&per_page=1')).json()
  t.equal(urgent.pagination.total, 2, 'total counts every matching ticket, not the page')

  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })
  t.equal((await app.inject({ method: 'GET', url: '/api/tickets', headers: bearer(member.token) })).json().pagination.total, 3, 'members see the whole company\'s tickets')
})

t.test('the routes need a bearer token', async (t) => {
  const { app } = await build(t)
  for (const [method, url] of [['GET', '/api/tickets'], ['POST', '/api/tickets/create'], ['GET', `/api/tickets/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`]] as const) {
    const response = await app.inject({ method, url, payload: method === 'POST' ? {} : undefined })
    t.equal(response.statusCode, 401, `${method} ${url}`)
    t.equal(response.json().error.code, 'TOKEN_MISSING')
  }
})
