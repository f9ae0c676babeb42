/**
 * An agent bound to some instances reads the company as if the others did not
 * exist: the activity feed shows only what happened to its instances (not the
 * other instances', not the company-wide entries), the dashboard counts only
 * them, and naming another instance answers not found. The person who connected
 * it, in the portal, still sees everything.
 */
import t from 'tap'
import { signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, restCall, useTool } from './tool-helpers.ts'

const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const shop = await recordInstance(app, admin.user.tenant_id, { name: 'Shop' })
const books = await recordInstance(app, admin.user.tenant_id, { name: 'Books' })
const actor = { kind: 'system' as const, tenantId: admin.user.tenant_id, job: 'test' }
await app.orm.em.fork().transactional(async (tx) => {
  app.activity.record(tx, actor, { type: 'instance.running', title: 'Shop is running', targetType: 'instance', targetId: String(shop), instanceId: shop })
  app.activity.record(tx, actor, { type: 'instance.running', title: 'Books is running', targetType: 'instance', targetId: String(books), instanceId: books })
})
await restCall(app, admin.token, 'POST', '/api/tickets/create', { subject: 'Company-wide', description: 'Not about an instance' })
const bound = await connectAgent(admin, 'Shop agent', { level: 'read', instanceIds: [shop] })
const whole = await connectAgent(admin, 'Whole agent', { level: 'read', instanceIds: null })

const titles = (answer: Record<string, any>) => answer.activities.map((a: { title: string }) => a.title)

t.test('the feed of an agent bound to one instance holds that instance\'s entries alone', async (t) => {
  const feed = assertToolSuccess(t, await useTool(app, bound.accessToken, 'list_activity'), 'bound feed')
  t.ok(feed.activities.length > 0, 'it sees something')
  t.ok(feed.activities.every((a: { instance_id: number | null }) => a.instance_id === shop), 'only the bound instance\'s entries')
  t.ok(titles(feed).includes('Shop is running'))
  t.notOk(titles(feed).includes('Books is running'), 'not the other instance\'s')
  t.notOk(feed.activities.some((a: { type: string }) => a.type === 'ticket.created'), 'not the company-wide entries')

  assertToolError(t, await useTool(app, bound.accessToken, 'list_activity', { instance_id: books }), 'INSTANCE_NOT_FOUND', 'filtering on the other instance: not found, as another company\'s')

  const full = assertToolSuccess(t, await useTool(app, whole.accessToken, 'list_activity'), 'unbound feed')
  t.ok(titles(full).includes('Books is running') && full.activities.some((a: { type: string }) => a.type === 'ticket.created'), 'an unbound agent sees the whole feed')
  const portal = await app.inject({ method: 'GET', url: '/api/activity', headers: { authorization: `Bearer ${admin.token}` } })
  t.ok(titles(portal.json()).includes('Books is running'), 'and so does the person in the portal')
})

t.test('the dashboard and instance tools of a bound agent know one instance', async (t) => {
  const { dashboard } = assertToolSuccess(t, await useTool(app, bound.accessToken, 'get_dashboard'), 'bound dashboard')
  t.same(dashboard.instances.map((i: { id: number }) => i.id), [shop], 'lists the bound instance only')
  t.ok(dashboard.activities.length > 0 && dashboard.activities.every((a: { instance_id: number | null }) => a.instance_id === shop), 'its latest activities are the bound instance\'s')
  assertToolError(t, await useTool(app, bound.accessToken, 'get_instance_status', { instance_id: books }), 'INSTANCE_NOT_FOUND', 'the other instance is not found')
  assertToolSuccess(t, await useTool(app, bound.accessToken, 'get_instance_status', { instance_id: shop }), 'its own answers')
})
