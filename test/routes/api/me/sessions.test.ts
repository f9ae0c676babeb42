import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'

type App = Awaited<ReturnType<typeof build>>['app']

const loginFrom = async (app: App, email: string, password: string, userAgent: string, remoteAddress: string): Promise<string> => {
  const response = await app.inject({ method: 'POST', url: '/api/login', payload: { login: email, password }, headers: { 'user-agent': userAgent }, remoteAddress })
  if (response.statusCode !== 200) throw new Error(response.body)
  return response.json().token
}
const me = (app: App, token: string) => app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })
const activities = async (app: App, tenantId: string) =>
  (await app.sql<{ type: string, target_id: string }>({ text: 'SELECT type, target_id FROM activities WHERE tenant_id = $1 ORDER BY id', values: [tenantId] }))

t.test('the list: each live session with where it was opened, its last use, and the current one marked', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const laptop = await loginFrom(app, admin.email, admin.password, 'Laptop/1.0', '10.50.0.1')
  const phone = await loginFrom(app, admin.email, admin.password, 'Phone/2.0', '10.50.0.2')
  await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(admin.token) })

  const listed = await app.inject({ method: 'GET', url: '/api/me/sessions', headers: bearer(laptop) })
  t.equal(listed.statusCode, 200)
  const sessions = listed.json().sessions
  t.equal(sessions.length, 2, 'the logged-out signup session is not listed')
  const current = sessions.find((s: { current: boolean }) => s.current)
  t.match(current, { user_agent: 'Laptop/1.0', ip: '10.50.0.1' })
  t.match(sessions.find((s: { current: boolean }) => !s.current), { user_agent: 'Phone/2.0', ip: '10.50.0.2', current: false })
  for (const session of sessions) {
    t.match(session.created_at, /Z$/)
    t.match(session.last_used_at, /Z$/, 'set at login')
  }
  t.ok(phone)
})

t.test('last use is recorded at most once a minute, not on every request', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const sessionId = async () => (await app.inject({ method: 'GET', url: '/api/me/sessions', headers: bearer(admin.token) })).json().sessions[0].id
  const id = await sessionId()
  const lastUsed = async () => new Date((await app.sql<{ t: Date | string }>({ text: 'SELECT last_used_at AS t FROM portal_sessions WHERE id = $1', values: [id] }))[0]!.t).getTime()

  await app.sql({ text: "UPDATE portal_sessions SET last_used_at = now() - interval '30 seconds' WHERE id = $1", values: [id] })
  const recent = await lastUsed()
  await me(app, admin.token)
  t.equal(await lastUsed(), recent, 'used 30 s ago: not written again')

  await app.sql({ text: "UPDATE portal_sessions SET last_used_at = now() - interval '2 minutes' WHERE id = $1", values: [id] })
  const before = await lastUsed()
  await me(app, admin.token)
  const after = await lastUsed()
  t.ok(after > before + 100_000, 'over a minute old: refreshed by the next request')
  t.ok(Math.abs(after - Date.now()) < 10_000)
})

t.test('ending one session: only your own; another person\'s id answers 404 and changes nothing', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const other = await loginFrom(app, admin.email, admin.password, 'Phone/2.0', '10.50.1.2')
  const member = await addMember(app, admin.user.tenant_id)
  const stranger = await signup(app)

  const ids = async (token: string) => (await app.inject({ method: 'GET', url: '/api/me/sessions', headers: bearer(token) })).json().sessions.map((s: { id: string }) => s.id)
  const [memberSession] = await ids(member.token)
  const [strangerSession] = await ids(stranger.token)
  for (const id of [memberSession, strangerSession, '00000000-0000-4000-8000-000000000000']) {
    const response = await app.inject({ method: 'DELETE', url: `/api/me/sessions/${id}`, headers: bearer(admin.token) })
    t.equal(response.statusCode, 404)
    t.equal(response.json().error.code, 'SESSION_NOT_FOUND')
  }
  t.equal((await me(app, member.token)).statusCode, 200, 'the member is still signed in')
  t.equal((await me(app, stranger.token)).statusCode, 200)

  const phoneId = (await app.inject({ method: 'GET', url: '/api/me/sessions', headers: bearer(other) })).json().sessions.find((s: { current: boolean }) => s.current).id
  const ended = await app.inject({ method: 'DELETE', url: `/api/me/sessions/${phoneId}`, headers: bearer(admin.token) })
  t.equal(ended.statusCode, 200)
  t.equal((await me(app, other)).statusCode, 401, 'its token stops at once')
  t.equal((await me(app, admin.token)).statusCode, 200)
  const twice = await app.inject({ method: 'DELETE', url: `/api/me/sessions/${phoneId}`, headers: bearer(admin.token) })
  t.equal(twice.statusCode, 404, 'an ended session is not found')
  t.same((await activities(app, admin.user.tenant_id)).map((a) => [a.type, a.target_id]), [['session.revoked', phoneId]])
})

t.test('revoke-others keeps the current session only', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const others = [await loginFrom(app, admin.email, admin.password, 'A', '10.50.2.1'), await loginFrom(app, admin.email, admin.password, 'B', '10.50.2.2')]
  const member = await addMember(app, admin.user.tenant_id)
  const response = await app.inject({ method: 'POST', url: '/api/me/sessions/revoke-others', headers: bearer(admin.token) })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { success: true, revoked: 2 })
  for (const token of others) t.equal((await me(app, token)).statusCode, 401)
  t.equal((await me(app, admin.token)).statusCode, 200)
  t.equal((await me(app, member.token)).statusCode, 200, 'other people\'s sessions are not touched')
  t.same((await activities(app, admin.user.tenant_id)).map((a) => a.type), ['session.others_revoked'])
})

t.test('an admin ends every session of a member; not of another company\'s user, and not as a plain user', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const second = await loginFrom(app, member.email, member.password, 'M2', '10.50.3.1')
  const stranger = await signup(app)
  const revoke = (token: string, userId: string) => app.inject({ method: 'POST', url: `/api/users/${userId}/sessions/revoke`, headers: bearer(token) })

  const foreign = await revoke(admin.token, stranger.user.id)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'USER_NOT_FOUND')
  t.equal((await me(app, stranger.token)).statusCode, 200)

  const asUser = await revoke(member.token, admin.user.id)
  t.equal(asUser.statusCode, 403)
  t.equal(asUser.json().error.code, 'FORBIDDEN')
  t.equal((await me(app, admin.token)).statusCode, 200)

  const done = await revoke(admin.token, member.user.id)
  t.equal(done.statusCode, 200)
  t.same(done.json(), { success: true, revoked: 2 })
  for (const token of [member.token, second]) t.equal((await me(app, token)).statusCode, 401)
  t.equal((await me(app, admin.token)).statusCode, 200)
  const [record] = await activities(app, admin.user.tenant_id)
  t.same([record?.type, record?.target_id], ['session.all_revoked', member.user.id])
})
