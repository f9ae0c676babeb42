import t from 'tap'
import { addMember, signup } from '../support/accounts.ts'
import { startMcpFixture } from '../support/mcp.ts'
import { recordInstance } from '../support/instance-rows.ts'
import { assertToolError, assertToolSuccess, latestActivity, personName, restCall, tenantSnapshot, useTool } from './tool-helpers.ts'

const { app, connectAgent } = await startMcpFixture(t)
const admin = await signup(app)
const member = await addMember(app, admin.user.tenant_id, { name: 'Maya Member' })
const adminAgent = (await connectAgent(admin, 'Team agent')).accessToken
const memberAgent = (await connectAgent(member, 'Team agent')).accessToken
const adminName = await personName(app, admin)

const outboxTo = async (email: string) => (await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM mail_outbox WHERE recipient = $1', values: [email] }))[0]!.n

t.test('list_users gives an admin the whole team', async (t) => {
  const { users } = assertToolSuccess(t, await useTool(app, adminAgent, 'list_users'), 'list_users')
  t.same(users.map((user: { id: string }) => user.id).sort(), [admin.user.id, member.user.id].sort())
  t.match(users.find((user: { id: string }) => user.id === member.user.id), { name: 'Maya Member', email: member.email, role: 'user', active: true })
})

t.test('invite_user creates a pending invitation, queues its e-mail and credits the agent', async (t) => {
  const email = `new-hire-${Date.now()}@example.com`
  const outcome = await useTool(app, adminAgent, 'invite_user', { email, name: '  Nora New  ', role: 'user' })
  const { invitation } = assertToolSuccess(t, outcome, 'invite_user')
  t.match(invitation, { email, name: 'Nora New', role: 'user', status: 'pending', instance_id: null })

  const pending = await restCall(app, admin.token, 'GET', '/api/users/invitations')
  t.same(pending.data.invitations.map((row: { id: string }) => row.id), [invitation.id], 'the portal lists it')
  t.same(pending.data.invitations[0], invitation, 'as the agent was told')
  t.equal(await outboxTo(email), 1, 'the invitation e-mail is queued')
  t.match(await latestActivity(app, admin, 'invitation.created'), {
    target_type: 'invitation', target_id: invitation.id, actor: { kind: 'agent', id: admin.user.id, name: `Team agent for ${adminName}` }
  })

  const again = assertToolError(t, await useTool(app, adminAgent, 'invite_user', { email, name: 'Nora New', role: 'user' }), 'INVITATION_PENDING', 'inviting twice')
  t.match(again.details, { field: 'email' })
  t.equal((await restCall(app, admin.token, 'GET', '/api/users/invitations')).data.invitations.length, 1, 'still one invitation')
  t.equal(await outboxTo(email), 1, 'and one e-mail')
})

t.test('invite_user about one of the company\'s instances; another company\'s instance is not found', async (t) => {
  const ours = await recordInstance(app, admin.user.tenant_id)
  const invited = assertToolSuccess(t, await useTool(app, adminAgent, 'invite_user', { email: `ops-${Date.now()}@example.com`, name: 'Olga Ops', role: 'admin', instance_id: ours }), 'with our instance')
  t.match(invited.invitation, { role: 'admin', instance_id: ours })

  const victim = await signup(app)
  const theirs = await recordInstance(app, victim.user.tenant_id)
  const ownBefore = await tenantSnapshot(app, admin.user.tenant_id)
  const victimBefore = await tenantSnapshot(app, victim.user.tenant_id)
  assertToolError(t, await useTool(app, adminAgent, 'invite_user', { email: 'spy@example.com', name: 'Spy', role: 'user', instance_id: theirs }), 'INSTANCE_NOT_FOUND')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), ownBefore, 'no invitation, e-mail or activity here')
  t.equal(await tenantSnapshot(app, victim.user.tenant_id), victimBefore, 'nothing changed there')
})

t.test('a member\'s agent is refused both team tools with FORBIDDEN, and nothing changes', async (t) => {
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const listed = assertToolError(t, await useTool(app, memberAgent, 'list_users'), 'FORBIDDEN', 'list_users')
  t.match(listed.message, /admin/i, 'the message says who may')
  const email = `member-invite-${Date.now()}@example.com`
  const invite = assertToolError(t, await useTool(app, memberAgent, 'invite_user', { email, name: 'Friend', role: 'admin' }), 'FORBIDDEN', 'invite_user')
  t.match(invite.message, /admin/i)
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before, 'no invitation, e-mail, role or activity changed')
  t.equal(await outboxTo(email), 0, 'no e-mail queued')

  const rest = await restCall(app, member.token, 'POST', '/api/users/invite', { email, name: 'Friend', role: 'admin' })
  t.equal(rest.status, 403, 'the portal refuses the member the same way')
  t.equal(invite.code, rest.data.error.code, 'with the same code (the agent is told why no level would allow it)')
})

t.test('invalid invitations are VALIDATION_FAILED naming the field, and record nothing', async (t) => {
  const before = await tenantSnapshot(app, admin.user.tenant_id)
  const valid = { email: 'valid@example.com', name: 'Val Id', role: 'user' }
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...valid, email: 'not-an-address' }, 'email'],
    [{ ...valid, email: `${'x'.repeat(250)}@example.com` }, 'email'],
    [{ ...valid, name: '   ' }, 'name'],
    [{ ...valid, role: 'owner' }, 'role'],
    [{ ...valid, instance_id: 'instance-1' }, 'instance_id'],
    [{ ...valid, tenant_id: admin.user.tenant_id }, 'tenant_id'],
    [{ email: valid.email, name: valid.name }, 'role']
  ]
  for (const [args, field] of cases) {
    const label = `invite_user ${field} ${JSON.stringify(args[field] ?? null).slice(0, 30)}`
    const error = assertToolError(t, await useTool(app, adminAgent, 'invite_user', args), 'VALIDATION_FAILED', label)
    t.ok(error.details.fields.some((f: { field: string, in: string }) => f.field === field && f.in === 'arguments'), `${label}: names ${field}`)
  }
  assertToolError(t, await useTool(app, adminAgent, 'list_users', { include_inactive: true }), 'VALIDATION_FAILED', 'list_users takes no arguments')
  t.equal(await tenantSnapshot(app, admin.user.tenant_id), before)
})
