import t from 'tap'
import { scopedEntityManager } from '../../../../database/tenancy.ts'
import type { UserActor } from '../../../../lib/actor.ts'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { activities, getTicket, openTicket, replyTo } from './helpers.ts'

t.test('support reply → answered, customer reply → open, close, customer reply on closed → reopened', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const ticket = await openTicket(app, admin.token)
  const desk = app.supportDesk

  const answered = await desk.reply(orm.em, ticket.id, 'Sam Support', 'We are on it.')
  t.same(answered.tenant, { id: admin.user.tenant_id, subdomain: admin.subdomain, name: answered.tenant.name }, 'the desk names the ticket\'s tenant')
  const seen = (await getTicket(app, admin.token, ticket.id)).json().ticket
  t.equal(seen.status, 'answered')
  t.same(seen.messages[1], {
    id: seen.messages[1].id,
    message: 'We are on it.',
    author: { id: null, name: 'Sam Support' },
    from_support: true,
    created_at: seen.last_message_at
  }, 'the customer sees the support message in the thread')

  t.equal((await replyTo(app, admin.token, ticket.id, 'Thanks, still broken.')).json().ticket.status, 'open')

  const closed = await desk.close(orm.em, ticket.id, 'Sam Support')
  t.equal(closed.ticket.status, 'closed')
  t.ok(closed.ticket.closed_at, 'closed_at is set')
  t.equal(closed.ticket.message_count, 3, 'closing adds no message')
  await t.rejects(desk.close(orm.em, ticket.id, 'Sam Support'), { code: 'TICKET_ALREADY_CLOSED', statusCode: 409 })

  const reopened = (await replyTo(app, admin.token, ticket.id, 'It is back.')).json().ticket
  t.equal(reopened.status, 'open', 'a customer reply reopens a closed ticket')
  t.equal(reopened.closed_at, null)

  await desk.close(orm.em, ticket.id, 'Sam Support')
  const followUp = await desk.reply(orm.em, ticket.id, 'Sam Support', 'One more thing.')
  t.equal(followUp.ticket.status, 'answered', 'a support reply on a closed ticket answers it')

  const rows = await activities(orm, admin.user.tenant_id)
  t.same(rows.map((row) => [row.type, row.actor_kind, row.actor_id]), [
    ['ticket.created', 'user', admin.user.id],
    ['ticket.support_replied', 'system', 'support:Sam Support'],
    ['ticket.replied', 'user', admin.user.id],
    ['ticket.closed', 'system', 'support:Sam Support'],
    ['ticket.replied', 'user', admin.user.id],
    ['ticket.reopened', 'user', admin.user.id],
    ['ticket.closed', 'system', 'support:Sam Support'],
    ['ticket.support_replied', 'system', 'support:Sam Support'],
    ['ticket.reopened', 'system', 'support:Sam Support']
  ], 'one record per change, the second close refused without a record')
  t.ok(rows.every((row) => row.target_type === 'ticket' && row.target_id === ticket.id))
  t.equal(rows[1]?.title, 'Support (Sam Support) replied to ticket "Invoices do not print"')
  t.equal(rows[1]?.actor_name, 'System (support:Sam Support)')
})

t.test('the service enforces who may do what, whatever the entry point', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const ticket = await openTicket(app, admin.token)
  const em = scopedEntityManager(orm.em, admin.user.tenant_id)
  const user: UserActor = { kind: 'user', userId: admin.user.id, tenantId: admin.user.tenant_id, role: 'admin', email: admin.email, name: 'Ada', sessionId: admin.user.id }

  await t.rejects(app.tickets.close({ em, actor: user }, ticket.id), { code: 'FORBIDDEN' }, 'portal users cannot close')
  await t.rejects(app.tickets.reply({ em, actor: { kind: 'system', tenantId: admin.user.tenant_id, job: 'billing' } }, ticket.id, { message: 'x' }), { code: 'FORBIDDEN' }, 'other system jobs cannot write in tickets')
  await t.rejects(app.tickets.reply({ em, actor: user }, ticket.id, { message: '   ' }), { code: 'VALIDATION_FAILED', statusCode: 400, details: { fields: [{ field: 'message', in: 'body', message: 'must be between 1 and 10000 characters' }] } }, 'the service trims and checks lengths itself')
  await t.rejects(app.tickets.create({ em, actor: user }, { subject: 'Help me', description: 'x', priority: 'asap' as never }), { code: 'VALIDATION_FAILED', message: 'priority must be one of: low, normal, high, urgent', details: { fields: [{ field: 'priority', allowed: ['low', 'normal', 'high', 'urgent'] }] } })
  await t.rejects(app.supportDesk.reply(orm.em, ticket.id, '  ', 'Hello'), { code: 'VALIDATION_FAILED', details: { fields: [{ field: 'staff_name' }] } }, 'support staff must give a name')
  await t.rejects(app.supportDesk.reply(orm.em, ticket.id, 'Sam\u0007', 'Hello'), { code: 'VALIDATION_FAILED', details: { fields: [{ field: 'staff_name' }] } }, 'one line of plain text')
  await t.rejects(app.supportDesk.reply(orm.em, 'not-a-uuid', 'Sam', 'Hello'), { code: 'TICKET_NOT_FOUND', statusCode: 404 })
  t.equal((await getTicket(app, admin.token, ticket.id)).json().ticket.message_count, 1, 'nothing was written')
})

t.test('concurrent replies on one ticket all land, and the status follows the last one', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const ticket = await openTicket(app, admin.token)
  await Promise.all([
    ...Array.from({ length: 4 }, (_, i) => replyTo(app, admin.token, ticket.id, `customer ${i}`)),
    ...Array.from({ length: 4 }, (_, i) => app.supportDesk.reply(orm.em, ticket.id, 'Sam', `support ${i}`))
  ])
  const thread = (await getTicket(app, admin.token, ticket.id)).json().ticket
  t.equal(thread.message_count, 9)
  const times = thread.messages.map((m: { created_at: string }) => m.created_at)
  t.same(times, [...new Set(times)].sort(), 'strictly increasing times: the thread order is the write order')
  const last = thread.messages.at(-1)
  t.equal(thread.status, last.from_support ? 'answered' : 'open')
  t.equal(thread.last_message_at, last.created_at)
})
