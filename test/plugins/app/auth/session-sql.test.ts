import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { statementsDuring } from '../../../support/statements.ts'

const USER_EMAILS = { name: 'test-user-emails', text: 'SELECT email FROM users WHERE tenant_id = $1 AND role = $2 ORDER BY email' }

function routes (app: FastifyInstance) {
  app.get('/api/test/inline', { config: { auth: 'portal-inline' } }, async (request) => {
    const { actor, rows } = await app.auth.sessionSql(request)<{ email: string }>(USER_EMAILS, ['user'])
    return { actor: actor.userId, request_actor: request.actor.userId, emails: rows.map((row) => row.email) }
  })
  app.get('/api/test/inline-unchecked', { config: { auth: 'portal-inline' } }, async () => ({ leaked: true }))
  app.get('/api/test/portal-using-inline', async (request) => {
    await app.auth.sessionSql(request)(USER_EMAILS, ['user'])
    return {}
  })
}

t.test('a statement under the session: its rows and the caller, in one round trip, for its own tenant only', async (t) => {
  const { app } = await build(t, { routes })
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const neighbour = await signup(app)
  await addMember(app, neighbour.user.tenant_id)

  const get = () => app.inject({ method: 'GET', url: '/api/test/inline', headers: bearer(admin.token) })
  await get() // prepares the statement
  let body: { actor: string, request_actor: string, emails: string[] } | undefined
  const statements = await statementsDuring(app, async () => { body = (await get()).json() })
  t.same(statements, ['session:test-user-emails'], 'one statement, the session check included')
  t.same(body, { actor: admin.user.id, request_actor: admin.user.id, emails: [member.email] }, 'the caller, and only their company\'s rows')

  t.equal((await app.inject({ method: 'POST', url: '/api/logout', headers: bearer(admin.token) })).statusCode, 200)
  const revoked = await get()
  t.equal(revoked.statusCode, 401)
  t.equal(revoked.json().error.code, 'TOKEN_INVALID')
})

t.test('a portal-inline route that answers without checking the session is an error, not an answer', async (t) => {
  const { app } = await build(t, { routes })
  const admin = await signup(app)
  const unchecked = await app.inject({ method: 'GET', url: '/api/test/inline-unchecked', headers: bearer(admin.token) })
  t.equal(unchecked.statusCode, 500)
  t.notMatch(unchecked.body, /leaked/)
  t.equal((await app.inject({ method: 'GET', url: '/api/test/inline-unchecked' })).statusCode, 401, 'no token: 401 first')
  const misused = await app.inject({ method: 'GET', url: '/api/test/portal-using-inline', headers: bearer(admin.token) })
  t.equal(misused.statusCode, 500, 'sessionSql is for portal-inline routes only')
})
