import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, personName, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const { accessToken: token } = await connectAgent(admin, 'Account agent')
const other = await signup(app)

for (const subject of ['First ticket', 'Second ticket', 'Third ticket']) {
  await restCall(app, admin.token, 'POST', '/api/tickets/create', { subject, description: 'For the feed' })
}
await restCall(app, other.token, 'POST', '/api/tickets/create', { subject: 'Another company', description: 'Not yours' })
await recordInstance(app, other.user.tenant_id)

t.test('whoami names the person, their role and company, and the connected client', async (t) => {
  const me = assertToolSuccess(t, await useTool(app, token, 'whoami'), 'whoami')
  t.match(me.user, { id: admin.user.id, email: admin.email, role: 'admin', is_admin: true, tenant_id: admin.user.tenant_id, name: await personName(app, admin) })
  t.same(me.agent, { client_name: 'Account agent' })

  const member = await addMember(app, admin.user.tenant_id)
  const memberAgent = await connectAgent(member, 'Member laptop')
  const them = assertToolSuccess(t, await useTool(app, memberAgent.accessToken, 'whoami'), 'member whoami')
  t.match(them.user, { id: member.user.id, role: 'user', is_admin: false, tenant_id: admin.user.tenant_id })
  t.same(them.agent, { client_name: 'Member laptop' })
})

t.test('get_dashboard shows this company only', async (t) => {
  const { dashboard } = assertToolSuccess(t, await useTool(app, token, 'get_dashboard'), 'get_dashboard')
  t.match(dashboard.tenant, { id: admin.user.tenant_id, subdomain: admin.subdomain })
  t.equal(dashboard.user, await personName(app, admin))
  t.equal(dashboard.statistics.tickets.open, 3, 'its own three tickets, not the other company\'s')
  t.equal(dashboard.statistics.instances.total, 0, 'the other company\'s instance is not counted')
  t.same(dashboard.instances, [])
})

t.test('list_activity: newest first, filtered, paged with next_cursor, never another company\'s', async (t) => {
  const all = assertToolSuccess(t, await useTool(app, token, 'list_activity'), 'without arguments (limit defaults)')
  const created = all.activities.filter((activity: { type: string }) => activity.type === 'ticket.created')
  t.equal(created.length, 3, 'the three tickets, not the other company\'s')
  t.ok(all.activities.every((a: { id: number }, i: number, list: Array<{ id: number }>) => i === 0 || list[i - 1]!.id > a.id), 'newest first')

  const first = assertToolSuccess(t, await useTool(app, token, 'list_activity', { limit: 2, type: 'ticket.created' }), 'page 1')
  t.equal(first.activities.length, 2)
  t.equal(first.next_cursor, first.activities[1].id, 'the cursor is the last id of the page')
  const second = assertToolSuccess(t, await useTool(app, token, 'list_activity', { limit: 2, type: 'ticket.created', before: first.next_cursor }), 'page 2')
  t.equal(second.activities.length, 1)
  t.equal(second.next_cursor, null, 'last page')
  t.same([...first.activities, ...second.activities].map((a: { id: number }) => a.id), created.map((a: { id: number }) => a.id), 'the pages cover the feed once')
})

t.test('invalid arguments are VALIDATION_FAILED naming the field, for every account tool', async (t) => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['list_activity', { limit: 0 }, 'limit'],
    ['list_activity', { limit: 101 }, 'limit'],
    ['list_activity', { limit: '5' }, 'limit'],
    ['list_activity', { before: 0 }, 'before'],
    ['list_activity', { type: '' }, 'type'],
    ['list_activity', { type: 'backup.nonsense' }, 'type'],
    ['list_activity', { instance_id: 'not-a-uuid' }, 'instance_id'],
    ['list_activity', { tenant_id: other.user.tenant_id }, 'tenant_id'],
    ['whoami', { as: 'someone else' }, 'as'],
    ['get_dashboard', { tenant_id: other.user.tenant_id }, 'tenant_id'],
    ['get_plan_recommendation', { users: 0 }, 'users'],
    ['get_plan_recommendation', { storage: -1 }, 'storage'],
    ['get_plan_recommendation', { billing_cycle: 'weekly' }, 'billing_cycle'],
    ['list_modules', { q: 'x'.repeat(101) }, 'q'],
    ['list_modules', { category: 7 }, 'category']
  ]
  for (const [tool, args, field] of cases) {
    const label = `${tool} ${JSON.stringify(args).slice(0, 40)}`
    const error = assertToolError(t, await useTool(app, token, tool, args), 'VALIDATION_FAILED', label)
    t.ok(error.details.fields.some((f: { field: string, in: string }) => f.field === field && f.in === 'arguments'), `${label}: names ${field}`)
    t.ok(error.message.startsWith(`${field} `), `${label}: the message starts with the field`)
  }
})

t.test('catalog tools answer from the catalog and the company\'s own subscription', async (t) => {
  const sales = assertToolSuccess(t, await useTool(app, token, 'list_modules', { q: '  sales  ' }), 'list_modules q')
  t.ok(sales.modules.length > 0, 'a search finds modules')
  t.ok(sales.modules.every((m: Record<string, string>) => /sales/i.test(`${m.name} ${m.technical_name} ${m.description}`)), 'only matching ones')
  const finance = assertToolSuccess(t, await useTool(app, token, 'list_modules', { category: 'finance' }), 'list_modules category')
  t.ok(finance.modules.length > 0 && finance.modules.every((m: { category: string }) => m.category === 'Finance'), 'category, case-insensitive')

  const { plans } = assertToolSuccess(t, await useTool(app, token, 'list_plans'), 'list_plans')
  t.ok(plans.some((plan: { is_trial: boolean }) => plan.is_trial), 'the trial is on offer')
  const advice = assertToolSuccess(t, await useTool(app, token, 'get_plan_recommendation', { users: 8 }), 'get_plan_recommendation')
  t.match(advice.requested, { users: 8, storage: 0, billing_cycle: 'monthly' }, 'the defaults fill what was not asked')
  t.match(advice.recommended_plan, { is_trial: false, fits: true }, 'a paid plan that fits')
  t.ok(advice.recommended_plan.max_users >= 8, 'the recommended plan takes eight users')

  assertToolError(t, await useTool(app, token, 'get_subscription'), 'SUBSCRIPTION_NOT_FOUND', 'before any subscription')
  await restCall(app, admin.token, 'POST', '/api/subscription/demo', { plan_id: plans.find((plan: { is_trial: boolean }) => plan.is_trial).id })
  const { subscription } = assertToolSuccess(t, await useTool(app, token, 'get_subscription'), 'get_subscription')
  t.match(subscription, { status: 'trialing', plan: { code: 'trial' } })
})

t.test('read-only tools change nothing', async (t) => {
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  for (const tool of ['whoami', 'get_dashboard', 'list_activity', 'list_instances', 'list_modules', 'list_plans', 'get_subscription', 'get_plan_recommendation', 'list_tickets', 'list_users']) {
    t.equal((await useTool(app, token, tool)).isError, false, tool)
  }
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before)
})
