import { randomUUID } from 'node:crypto'
import t from 'tap'
import { addMember, signup, type SignedUp } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, restCall, useTool } from './tool-helpers.ts'

/** A read tool and the REST route a portal client asks for the same thing; `pick` takes the tool's part that the route answers. */
const withoutPages = ({ pagination: _pagination, ...rest }: Record<string, any>) => rest

interface ReadPair {
  tool: string
  args: Record<string, unknown>
  rest: string
  pick?: (data: Record<string, any>) => unknown
  /** What of the REST answer the tool answers too (a paged list's `pagination` is REST's alone: the tools answer every row). */
  restPick?: (data: Record<string, any>) => unknown
}

const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const member = await addMember(app, admin.user.tenant_id)
const agents = new Map<SignedUp, string>([
  [admin, (await connectAgent(admin, 'Parity agent')).accessToken],
  [member, (await connectAgent(member, 'Parity agent')).accessToken]
])

/** A call that fails, as a tool and as the route (`METHOD /url`); a POST sends `body`, or the tool's arguments. */
interface FailingPair {
  tool: string
  args: Record<string, unknown>
  route: string
  body?: Record<string, unknown>
}

async function restFailure (person: SignedUp, { route, args, body }: FailingPair): Promise<{ status: number, error: Record<string, any> }> {
  const [method, url] = route.split(' ') as ['GET' | 'POST', string]
  const rest = await restCall(app, person.token, method, url, method === 'POST' ? body ?? args : undefined)
  return { status: rest.status, error: rest.data.error }
}

t.test('errors: the same code, message and details as the REST envelope', async (t) => {
  const unknown = randomUUID()
  const unknownInstance = Number.MAX_SAFE_INTEGER
  const instance = (change: Record<string, unknown>) => ({ name: 'Parity', subdomain: `parity-${unknown.slice(0, 8)}`, erp_version: '17.0', backend: 'kubernetes', ...change })
  const pairs: FailingPair[] = [
    { tool: 'get_subscription', args: {}, route: 'GET /api/subscription/current' },
    { tool: 'get_ticket', args: { ticket_id: unknown }, route: `GET /api/tickets/${unknown}` },
    { tool: 'reply_to_ticket', args: { ticket_id: unknown, message: 'Anyone there?' }, route: `POST /api/tickets/${unknown}/reply`, body: { message: 'Anyone there?' } },
    { tool: 'get_instance', args: { instance_id: unknownInstance }, route: `GET /api/instances/${unknownInstance}` },
    { tool: 'get_instance_status', args: { instance_id: unknownInstance }, route: `GET /api/instances/${unknownInstance}/status` },
    { tool: 'stop_instance', args: { instance_id: unknownInstance }, route: `POST /api/instances/${unknownInstance}/stop`, body: {} },
    { tool: 'create_instance', args: instance({ subdomain: 'www' }), route: 'POST /api/instances/create' },
    { tool: 'create_instance', args: instance({ erp_version: '15.0' }), route: 'POST /api/instances/create' },
    { tool: 'create_instance', args: instance({}), route: 'POST /api/instances/create' },
    { tool: 'invite_user', args: { email: admin.email, name: 'Already here', role: 'user' }, route: 'POST /api/users/invite' }
  ]
  for (const pair of pairs) {
    const rest = await restFailure(admin, pair)
    t.ok(rest.status >= 400, `${pair.tool}: the route refuses it too (${rest.status})`)
    const error = assertToolError(t, await useTool(app, agents.get(admin)!, pair.tool, pair.args), rest.error.code, pair.tool)
    t.same(error, rest.error, `${pair.tool}: ${rest.error.code} with the same message and details`)
  }
})

t.test('validation errors: VALIDATION_FAILED naming the same fields as the route', async (t) => {
  const ticket = await restCall(app, admin.token, 'POST', '/api/tickets/create', { subject: 'To reply to', description: 'Text' })
  const ticketId = ticket.data.ticket.id as string
  const pairs: FailingPair[] = [
    { tool: 'create_ticket', args: { subject: 'ab', description: 'Fine' }, route: 'POST /api/tickets/create' },
    { tool: 'create_ticket', args: { subject: 'Fine subject', description: 'Fine', priority: 'asap' }, route: 'POST /api/tickets/create' },
    // Both trim before the length checks: "  ab  " is too short on either side.
    { tool: 'create_ticket', args: { subject: '  ab  ', description: '   ' }, route: 'POST /api/tickets/create' },
    { tool: 'reply_to_ticket', args: { ticket_id: ticketId, message: '   ' }, route: `POST /api/tickets/${ticketId}/reply`, body: { message: '   ' } },
    { tool: 'create_instance', args: { name: 'X', subdomain: 'Not_A_Label', erp_version: '17.0', backend: 'docker', color: 'red' }, route: 'POST /api/instances/create' },
    { tool: 'invite_user', args: { email: 'not-an-address', name: 'Someone', role: 'owner' }, route: 'POST /api/users/invite' }
  ]
  const fieldsOf = (error: Record<string, any>) => (error.details?.fields as Array<Record<string, unknown>> | undefined)?.map(({ field, message }) => ({ field, message }))
  for (const pair of pairs) {
    const label = `${pair.tool} ${JSON.stringify(pair.args).slice(0, 60)}`
    const rest = await restFailure(admin, pair)
    t.equal(rest.status, 400, `${label}: the route answers 400`)
    const error = assertToolError(t, await useTool(app, agents.get(admin)!, pair.tool, pair.args), 'VALIDATION_FAILED', label)
    t.same(fieldsOf(error), fieldsOf(rest.error), `${label}: the same fields and reasons (${JSON.stringify(fieldsOf(error))})`)
    t.ok(error.details?.fields?.every((field: { in: string }) => field.in === 'arguments'), `${label}: the fields are located in the arguments`)
  }
})

t.test('reads: each tool answers what the REST route answers the same person', async (t) => {
  const trial = await restCall(app, admin.token, 'POST', '/api/subscription/demo', { plan_id: 1 })
  t.equal(trial.status, 200, `a trial to read (${JSON.stringify(trial.data)})`)
  const ticket = await restCall(app, admin.token, 'POST', '/api/tickets/create', { subject: 'Parity ticket', description: 'Compare me', priority: 'high' })
  const instanceId = await recordInstance(app, admin.user.tenant_id)
  const ticketId = ticket.data.ticket.id as string

  const pairs: ReadPair[] = [
    { tool: 'whoami', args: {}, rest: '/api/me', pick: (data) => ({ user: data.user }) },
    { tool: 'get_dashboard', args: {}, rest: '/api/dashboard' },
    { tool: 'list_activity', args: { limit: 5 }, rest: '/api/activity?limit=5' },
    { tool: 'list_activity', args: { limit: 5, type: 'ticket.created' }, rest: '/api/activity?limit=5&type=ticket.created' },
    { tool: 'list_instances', args: {}, rest: '/api/instances', restPick: withoutPages },
    { tool: 'get_instance', args: { instance_id: instanceId }, rest: `/api/instances/${instanceId}` },
    { tool: 'get_instance_status', args: { instance_id: instanceId }, rest: `/api/instances/${instanceId}/status`, pick: (data) => data.status },
    { tool: 'list_modules', args: { q: 'sales' }, rest: '/api/modules?q=sales' },
    { tool: 'list_modules', args: {}, rest: '/api/modules' },
    { tool: 'list_plans', args: {}, rest: '/api/plans' },
    { tool: 'get_subscription', args: {}, rest: '/api/subscription/current' },
    { tool: 'get_plan_recommendation', args: { users: 12, storage: 20, billing_cycle: 'yearly' }, rest: '/api/subscription/recommendation?users=12&storage=20&billing_cycle=yearly' },
    { tool: 'list_tickets', args: { priority: 'high', per_page: 10 }, rest: '/api/tickets?priority=high&per_page=10' },
    { tool: 'get_ticket', args: { ticket_id: ticketId }, rest: `/api/tickets/${ticketId}` }
  ]
  for (const person of [admin, member]) {
    const who = person === admin ? 'admin' : 'member'
    const token = agents.get(person)!
    const all = person === admin ? [...pairs, { tool: 'list_users', args: {}, rest: '/api/users', restPick: withoutPages }] : pairs
    for (const { tool, args, rest, pick, restPick } of all) {
      const expected = await restCall(app, person.token, 'GET', rest)
      t.equal(expected.status, 200, `${who} ${rest}`)
      const data = assertToolSuccess(t, await useTool(app, token, tool, args), `${who} ${tool}`)
      t.same(pick === undefined ? data : pick(data), restPick === undefined ? expected.data : restPick(expected.data), `${who} ${tool} ${JSON.stringify(args)} = GET ${rest}`)
    }
  }
  t.equal((await useTool(app, agents.get(admin)!, 'list_instances')).data.instances[0]?.id, instanceId, 'the comparison saw real rows')
  t.equal((await useTool(app, agents.get(member)!, 'list_tickets')).data.tickets[0]?.id, ticketId, 'a member sees the company\'s tickets')
})
