import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { activities, getTicket, openTicket } from '../tickets/helpers.ts'

const TOKEN = 'support-token-for-tests-0123456789abcdef'
const staff = { 'x-support-token': TOKEN }
const UNKNOWN = '00000000-0000-4000-8000-000000000000'

const routes = (id: string) => [
  ['GET', '/api/support/tickets', undefined],
  ['GET', `/api/support/tickets/${id}`, undefined],
  ['POST', `/api/support/tickets/${id}/reply`, { staff_name: 'Sam', message: 'Hi' }],
  ['POST', `/api/support/tickets/${id}/close`, { staff_name: 'Sam' }]
] as const

t.test('without SUPPORT_API_TOKEN the operator routes are off: 404', async (t) => {
  const { app } = await build(t)
  for (const [method, url, payload] of routes(UNKNOWN)) {
    const response = await app.inject({ method, url, payload, headers: staff })
    t.equal(response.statusCode, 404, `${method} ${url}`)
    t.equal(response.json().error.code, 'SUPPORT_API_DISABLED')
  }
})

t.test('a missing or wrong X-Support-Token is a 401, and a portal token is not one', async (t) => {
  const { app } = await build(t, { env: { SUPPORT_API_TOKEN: TOKEN } })
  const customer = await signup(app)
  const ticket = await openTicket(app, customer.token)
  for (const headers of [{}, { 'x-support-token': `${TOKEN}x` }, { 'x-support-token': TOKEN.slice(0, -1) }, bearer(customer.token)]) {
    for (const [method, url, payload] of routes(ticket.id)) {
      const response = await app.inject({ method, url, payload, headers })
      t.equal(response.statusCode, 401, `${method} ${url} with ${Object.keys(headers).join() || 'no header'}`)
      t.equal(response.json().error.code, 'SUPPORT_TOKEN_INVALID')
    }
  }
  t.equal((await getTicket(app, customer.token, ticket.id)).json().ticket.message_count, 1, 'nothing was written')
})

t.test('queue, thread, reply and close through the operator routes', async (t) => {
  const { app, orm } = await build(t, { env: { SUPPORT_API_TOKEN: TOKEN } })
  const alice = await signup(app)
  const bob = await signup(app)
  const low = await openTicket(app, alice.token, { subject: 'Low one', priority: 'low' })
  const high = await openTicket(app, bob.token, { subject: 'High one', priority: 'high' })
  const olderUrgent = await openTicket(app, alice.token, { subject: 'Urgent, older', priority: 'urgent' })
  const newerUrgent = await openTicket(app, bob.token, { subject: 'Urgent, newer', priority: 'urgent' })

  const queue = await app.inject({ method: 'GET', url: '/api/support/tickets', headers: staff })
  t.equal(queue.statusCode, 200)
  t.same(queue.json().tickets.map((x: { id: string }) => x.id), [olderUrgent.id, newerUrgent.id, high.id, low.id], 'most urgent first, then longest waiting')
  t.same(queue.json().tickets[0].tenant, { id: alice.user.tenant_id, subdomain: alice.subdomain, name: queue.json().tickets[0].tenant.name })
  t.same(queue.json().pagination, { page: 1, per_page: 25, total: 4 })
  const bobsOnly = await app.inject({ method: 'GET', url: `/api/support/tickets?tenant=${bob.subdomain}&per_page=1`, headers: staff })
  t.same(bobsOnly.json().tickets.map((x: { id: string }) => x.id), [newerUrgent.id])
  t.equal(bobsOnly.json().pagination.total, 2)
  const badStatus = await app.inject({ method: 'GET', url: '/api/support/tickets?status=waiting', headers: staff })
  t.equal(badStatus.statusCode, 400)
  t.same(badStatus.json().error.details.fields[0].allowed, ['open', 'answered', 'closed'])

  const shown = await app.inject({ method: 'GET', url: `/api/support/tickets/${high.id}`, headers: staff })
  t.equal(shown.statusCode, 200)
  t.equal(shown.json().tenant.subdomain, bob.subdomain)
  t.same(shown.json().ticket, (await getTicket(app, bob.token, high.id)).json().ticket, 'the same ticket the customer sees')

  const reply = await app.inject({ method: 'POST', url: `/api/support/tickets/${high.id}/reply`, headers: staff, payload: { staff_name: ' Sam Support ', message: ' Fixed. ' } })
  t.equal(reply.statusCode, 200)
  const seen = (await getTicket(app, bob.token, high.id)).json().ticket
  t.equal(seen.status, 'answered')
  t.match(seen.messages.at(-1), { message: 'Fixed.', author: { id: null, name: 'Sam Support' }, from_support: true })
  t.same(reply.json().ticket, seen)

  const close = await app.inject({ method: 'POST', url: `/api/support/tickets/${high.id}/close`, headers: staff, payload: { staff_name: 'Sam Support' } })
  t.equal(close.statusCode, 200)
  t.equal(close.json().ticket.status, 'closed')
  const twice = await app.inject({ method: 'POST', url: `/api/support/tickets/${high.id}/close`, headers: staff, payload: { staff_name: 'Sam Support' } })
  t.equal(twice.statusCode, 409)
  t.equal(twice.json().error.code, 'TICKET_ALREADY_CLOSED')

  t.same((await activities(orm, bob.user.tenant_id)).filter((row) => row.target_id === high.id).map((row) => [row.type, row.actor_id]), [
    ['ticket.created', bob.user.id], ['ticket.support_replied', 'support:Sam Support'], ['ticket.closed', 'support:Sam Support']
  ], 'recorded in the ticket\'s own tenant')
  t.same((await activities(orm, alice.user.tenant_id)).map((row) => row.type), ['ticket.created', 'ticket.created'])

  for (const [payload, field] of [[{ message: 'Hi' }, 'staff_name'], [{ staff_name: '  ', message: 'Hi' }, 'staff_name'], [{ staff_name: 'Sam\nEvil', message: 'Hi' }, 'staff_name'], [{ staff_name: 'Sam', message: ' ' }, 'message']] as const) {
    const invalid = await app.inject({ method: 'POST', url: `/api/support/tickets/${low.id}/reply`, headers: staff, payload })
    t.equal(invalid.statusCode, 400)
    t.equal(invalid.json().error.details.fields[0].field, field)
  }
  const unknown = await app.inject({ method: 'POST', url: `/api/support/tickets/${UNKNOWN}/reply`, headers: staff, payload: { staff_name: 'Sam', message: 'Hi' } })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'TICKET_NOT_FOUND')
})
