import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { openTicket, replyTo } from './helpers.ts'

const PRIORITIES = ['low', 'normal', 'high', 'urgent']
const STATUSES = ['open', 'answered', 'closed']

async function counts (app: import('fastify').FastifyInstance) {
  const [row] = await app.orm.em.getConnection().execute('SELECT (SELECT count(*) FROM tickets) AS tickets, (SELECT count(*) FROM ticket_messages) AS messages, (SELECT count(*) FROM activities) AS activities')
  return { tickets: Number(row?.tickets), messages: Number(row?.messages), activities: Number(row?.activities) }
}

t.test('a wrong priority or status is a 400 that lists the allowed values', async (t) => {
  const { app } = await build(t)
  const { token } = await signup(app)

  const create = await app.inject({ method: 'POST', url: '/api/tickets/create', headers: bearer(token), payload: { subject: 'Help', description: 'x', priority: 'critical' } })
  t.equal(create.statusCode, 400)
  const error = create.json().error
  t.equal(error.code, 'VALIDATION_FAILED')
  t.match(error.details.fields[0], { field: 'priority', in: 'body', message: `must be one of: ${PRIORITIES.join(', ')}` })
  t.same(error.details.fields[0].allowed, PRIORITIES)

  for (const [query, field, allowed] of [['status=pending', 'status', STATUSES], ['priority=asap', 'priority', PRIORITIES]] as const) {
    const list = await app.inject({ method: 'GET', url: `/api/tickets?${query}`, headers: bearer(token) })
    t.equal(list.statusCode, 400, query)
    t.equal(list.json().error.code, 'VALIDATION_FAILED')
    t.match(list.json().error.details.fields[0], { field, in: 'querystring' })
    t.same(list.json().error.details.fields[0].allowed, allowed, `${query}: allowed values listed`)
  }
})

t.test('lengths are checked after trimming; nothing is written on a 400', async (t) => {
  const { app } = await build(t)
  const { token } = await signup(app)
  const ticket = await openTicket(app, token)
  const before = await counts(app)
  const create = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/api/tickets/create', headers: bearer(token), payload })

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['subject of two characters after trimming', { subject: '   ab   ', description: 'x' }, 'subject'],
    ['subject over 200 characters', { subject: 's'.repeat(201), description: 'x' }, 'subject'],
    ['blank description', { subject: 'Help me', description: ' \n\t ' }, 'description'],
    ['description over 10000 characters', { subject: 'Help me', description: 'd'.repeat(10_001) }, 'description'],
    ['missing description', { subject: 'Help me' }, 'description'],
    ['a number for a subject (bodies are not coerced)', { subject: 12345, description: 'x' }, 'subject'],
    ['an unknown field', { subject: 'Help me', description: 'x', status: 'closed' }, 'status']
  ]
  for (const [name, payload, field] of cases) {
    const response = await create(payload)
    t.equal(response.statusCode, 400, name)
    t.equal(response.json().error.code, 'VALIDATION_FAILED', name)
    t.ok(response.json().error.details.fields.some((f: { field: string }) => f.field === field), `${name}: names ${field}`)
  }

  for (const message of ['   ', 'm'.repeat(10_001), 42, '']) {
    const response = await replyTo(app, token, ticket.id, message)
    t.equal(response.statusCode, 400, `reply ${JSON.stringify(message).slice(0, 20)}`)
    t.equal(response.json().error.details.fields[0].field, 'message')
  }
  t.same(await counts(app), before, 'no ticket, message or activity was written')

  t.equal((await create({ subject: '  abc  ', description: 'd'.repeat(10_000) })).statusCode, 201, 'the limits themselves are allowed')
  t.equal((await replyTo(app, token, ticket.id, 'm'.repeat(10_000))).statusCode, 200)
})

t.test('pagination and ids are validated', async (t) => {
  const { app } = await build(t)
  const { token } = await signup(app)
  for (const query of ['per_page=101', 'per_page=0', 'page=0', 'page=abc', 'colour=blue']) {
    const response = await app.inject({ method: 'GET', url: `/api/tickets?${query}`, headers: bearer(token) })
    t.equal(response.statusCode, 400, query)
    t.equal(response.json().error.code, 'VALIDATION_FAILED', query)
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/tickets?per_page=100', headers: bearer(token) })).statusCode, 200, '100 per page is the maximum')

  const notUuid = await app.inject({ method: 'GET', url: '/api/tickets/not-a-uuid', headers: bearer(token) })
  t.equal(notUuid.statusCode, 400)
  t.match(notUuid.json().error.details.fields[0], { field: 'id', in: 'params' })
  const unknown = await app.inject({ method: 'GET', url: '/api/tickets/00000000-0000-4000-8000-000000000000', headers: bearer(token) })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'TICKET_NOT_FOUND')
})
