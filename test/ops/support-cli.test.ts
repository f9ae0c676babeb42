import t from 'tap'
import { build } from '../support/build.ts'
import { bearer, signup } from '../support/accounts.ts'
import { runCli, type CliRun } from '../support/process.ts'
import { activities, getTicket, openTicket, snapshot } from '../routes/api/tickets/helpers.ts'

/** `node ops/support.ts …` as staff run it, with only the environment given here. */
function support (databaseUrl: string, args: string[], stdin?: string): Promise<CliRun> {
  return runCli('ops/support.ts', args, { DATABASE_URL: databaseUrl }, stdin)
}

t.test('support CLI: the queue across tenants, a reply the customer sees, and close', async (t) => {
  const { app, orm, databaseUrl } = await build(t)
  const alice = await signup(app)
  const bob = await signup(app)
  const ticket = await openTicket(app, alice.token, { subject: 'Payroll export fails', priority: 'urgent' })
  const other = await openTicket(app, bob.token, { subject: 'Question about plans', priority: 'low' })
  const bobBefore = await snapshot(orm, other.id)

  const queue = await support(databaseUrl, ['list', '--json'])
  t.equal(queue.code, 0, queue.stderr)
  const listed = JSON.parse(queue.stdout)
  t.same(listed.tickets.map((x: { id: string, tenant: { subdomain: string } }) => [x.tenant.subdomain, x.id]), [
    [alice.subdomain, ticket.id], [bob.subdomain, other.id]
  ], 'every tenant\'s tickets, the urgent one first')
  t.same(listed.pagination, { page: 1, per_page: 25, total: 2 })

  const text = await support(databaseUrl, ['list', '--status', 'open', '--tenant', bob.subdomain])
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /TENANT\s+TICKET\s+SUBJECT\s+PRIORITY\s+STATUS\s+AGE/)
  t.match(text.stdout, new RegExp(`${bob.subdomain}\\s+${other.id}\\s+Question about plans\\s+low\\s+open`))
  t.notMatch(text.stdout, ticket.id, 'filtered to one tenant')

  const reply = await support(databaseUrl, ['reply', ticket.id, '--as', 'Sam Support', '--message', 'We found the cause; a fix ships tonight.'])
  t.equal(reply.code, 0, reply.stderr)
  t.match(reply.stdout, /Replied as Sam Support; the ticket is now answered/)

  const seen = (await getTicket(app, alice.token, ticket.id)).json().ticket
  t.equal(seen.status, 'answered', 'the customer sees the status change')
  t.same(seen.messages.at(-1), {
    id: seen.messages.at(-1).id,
    message: 'We found the cause; a fix ships tonight.',
    author: { id: null, name: 'Sam Support' },
    from_support: true,
    created_at: seen.last_message_at
  }, 'and the reply in the thread, from support')
  const feed = await activities(orm, alice.user.tenant_id)
  t.match(feed.at(-1), { type: 'ticket.support_replied', actor_kind: 'system', actor_id: 'support:Sam Support', target_id: ticket.id })
  t.same(await snapshot(orm, other.id), bobBefore, 'the other tenant\'s ticket is untouched')
  t.same((await activities(orm, bob.user.tenant_id)).map((row) => row.type), ['ticket.created'])

  const show = await support(databaseUrl, ['show', ticket.id])
  t.equal(show.code, 0, show.stderr)
  t.match(show.stdout, `Tenant:   ${alice.subdomain}`)
  t.match(show.stdout, /--- Sam Support \(support\) · .*\nWe found the cause/)

  const piped = await support(databaseUrl, ['reply', ticket.id, '--as', 'Sam Support', '--message', '-', '--json'], 'First line\nsecond line\n')
  t.equal(piped.code, 0, piped.stderr)
  t.equal(JSON.parse(piped.stdout).ticket.messages.at(-1).message, 'First line\nsecond line', '--message - reads standard input')

  const close = await support(databaseUrl, ['close', ticket.id, '--as', 'Sam Support'])
  t.equal(close.code, 0, close.stderr)
  t.equal((await getTicket(app, alice.token, ticket.id)).json().ticket.status, 'closed')
  const again = await support(databaseUrl, ['close', ticket.id, '--as', 'Sam Support'])
  t.equal(again.code, 1)
  t.match(again.stderr, /TICKET_ALREADY_CLOSED/)

  const customer = await app.inject({ method: 'POST', url: `/api/tickets/${ticket.id}/reply`, headers: bearer(alice.token), payload: { message: 'Still failing.' } })
  t.equal(customer.json().ticket.status, 'open', 'the customer can reopen what support closed')
})

t.test('support CLI: refusals and usage errors', async (t) => {
  const { app, databaseUrl } = await build(t)
  const alice = await signup(app)
  const ticket = await openTicket(app, alice.token)

  const missingName = await support(databaseUrl, ['reply', ticket.id, '--message', 'Hi'])
  t.equal(missingName.code, 2)
  t.match(missingName.stderr, /--as is required/)
  const unknownCommand = await support(databaseUrl, ['delete', ticket.id])
  t.equal(unknownCommand.code, 2)
  t.match(unknownCommand.stderr, /unknown command "delete"/)

  const unknownTicket = await support(databaseUrl, ['show', '00000000-0000-4000-8000-000000000000'])
  t.equal(unknownTicket.code, 1)
  t.match(unknownTicket.stderr, /Ticket not found \[TICKET_NOT_FOUND\]/)
  const badStatus = await support(databaseUrl, ['list', '--status', 'pending'])
  t.equal(badStatus.code, 1)
  t.match(badStatus.stderr, /allowed: open, answered, closed/)
  const blank = await support(databaseUrl, ['reply', ticket.id, '--as', 'Sam', '--message', '   '])
  t.equal(blank.code, 1)
  t.match(blank.stderr, /VALIDATION_FAILED/)
  t.equal((await getTicket(app, alice.token, ticket.id)).json().ticket.message_count, 1, 'nothing was written')

  const help = await support(databaseUrl, ['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /usage: npm run support -- <command>/)
})
