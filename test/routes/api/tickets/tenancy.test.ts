import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { activities, getTicket, openTicket, replyTo, snapshot } from './helpers.ts'

t.test('another tenant\'s ticket answers 404 for every route and changes nothing', async (t) => {
  const { app, orm } = await build(t)
  const alice = await signup(app)
  const aliceMember = await addMember(app, alice.user.tenant_id, { role: 'user' })
  const bob = await signup(app)
  const bobs = await openTicket(app, bob.token, { subject: 'Bob\'s private ticket' })
  await replyTo(app, bob.token, bobs.id, 'More details')
  await app.supportDesk.close(orm.em, bobs.id, 'Sam')
  const before = await snapshot(orm, bobs.id)
  const bobActivities = await activities(orm, bob.user.tenant_id)
  const unknownId = '00000000-0000-4000-8000-000000000000'

  for (const intruder of [alice, aliceMember]) {
    const role = intruder === alice ? 'admin' : 'user'
    const detail = await getTicket(app, intruder.token, bobs.id)
    t.equal(detail.statusCode, 404, `${role}: GET detail`)
    t.same(detail.json().error, (await getTicket(app, intruder.token, unknownId)).json().error, `${role}: same answer as an id that does not exist`)

    const reply = await replyTo(app, intruder.token, bobs.id, 'Let me in')
    t.equal(reply.statusCode, 404, `${role}: POST reply (would even reopen it)`)
    t.equal(reply.json().error.code, 'TICKET_NOT_FOUND')
  }

  t.same(await snapshot(orm, bobs.id), before, 'bob\'s ticket and thread are unchanged')
  t.same(await activities(orm, bob.user.tenant_id), bobActivities, 'no activity in bob\'s feed')
  t.same(await activities(orm, alice.user.tenant_id), [], 'nor in alice\'s')
})

t.test('lists never show another tenant\'s tickets, whatever the filters', async (t) => {
  const { app } = await build(t)
  const alice = await signup(app)
  const bob = await signup(app)
  const mine = await openTicket(app, alice.token, { priority: 'urgent' })
  for (const priority of ['low', 'normal', 'high', 'urgent']) await openTicket(app, bob.token, { priority })

  for (const query of ['', '?status=open', '?priority=urgent', '?per_page=100', '?tenant_id=' + bob.user.tenant_id]) {
    const response = await app.inject({ method: 'GET', url: `/api/tickets${query}`, headers: { ...bearer(alice.token), 'x-tenant-id': bob.user.tenant_id } })
    if (query.startsWith('?tenant_id')) {
      t.equal(response.statusCode, 400, 'a tenant cannot be chosen from the query string')
      continue
    }
    t.equal(response.statusCode, 200, query || 'no filter')
    t.same(response.json().tickets.map((x: { id: string }) => x.id), [mine.id], `${query || 'no filter'}: only alice's ticket`)
    t.equal(response.json().pagination.total, 1, 'the total does not count other tenants either')
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/tickets', headers: bearer(bob.token) })).json().pagination.total, 4)
})
