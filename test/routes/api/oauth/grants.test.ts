import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'

const T0 = 1_800_000_000
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/** Rows as the auth server's adapter writes them. */
async function insert (app: FastifyInstance, kind: string, id: string, payload: Record<string, unknown>, grantId: string | null = null, expiresIn = 86_400) {
  await app.sql({
    text: 'INSERT INTO oidc_payloads (kind, id, payload, grant_id, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))',
    values: [kind, id, JSON.stringify(payload), grantId, expiresIn]
  })
}

async function connectAgent (app: FastifyInstance, userId: string, grantId: string, options: { clientName?: string, iat?: number, tokenIat?: number, expiresIn?: number } = {}) {
  const clientId = `client-${grantId}`
  await insert(app, 'Client', clientId, { client_id: clientId, ...(options.clientName === undefined ? {} : { client_name: options.clientName }) }, null, 0)
  await app.sql({ text: "UPDATE oidc_payloads SET expires_at = NULL WHERE kind = 'Client' AND id = $1", values: [clientId] })
  await insert(app, 'Grant', grantId, { accountId: userId, clientId, iat: options.iat ?? T0, jti: grantId, kind: 'Grant' }, null, options.expiresIn)
  if (options.tokenIat !== undefined) {
    await insert(app, 'RefreshToken', `rt-old-${grantId}`, { grantId, iat: options.tokenIat - 100 }, grantId)
    await insert(app, 'RefreshToken', `rt-${grantId}`, { grantId, iat: options.tokenIat }, grantId)
    await insert(app, 'AuthorizationCode', `code-${grantId}`, { grantId, iat: options.tokenIat - 200 }, grantId)
  }
}

const rowsOf = async (app: FastifyInstance, grantId: string) =>
  (await app.sql<{ kind: string }>({ text: "SELECT kind FROM oidc_payloads WHERE grant_id = $1 OR (kind = 'Grant' AND id = $1) ORDER BY kind", values: [grantId] })).map((r) => r.kind)

t.test('list: the caller\'s own live grants with client name, created and last used', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const stranger = await signup(app)
  await connectAgent(app, admin.user.id, 'grant-used', { clientName: 'Claude Code', iat: T0, tokenIat: T0 + 500 })
  await connectAgent(app, admin.user.id, 'grant-new', { iat: T0 + 1000 })
  await connectAgent(app, admin.user.id, 'grant-expired', { clientName: 'Old', expiresIn: -10 })
  await connectAgent(app, member.user.id, 'grant-member', { clientName: 'Colleague agent' })
  await connectAgent(app, stranger.user.id, 'grant-stranger', { clientName: 'Stranger agent' })

  const response = await app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(admin.token) })
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    success: true,
    grants: [
      { id: 'grant-new', client_id: 'client-grant-new', client_name: 'client-grant-new', created_at: iso(T0 + 1000), last_used_at: null, last_token_at: null, level: 'read', instance_ids: null },
      { id: 'grant-used', client_id: 'client-grant-used', client_name: 'Claude Code', created_at: iso(T0), last_used_at: null, last_token_at: iso(T0 + 500), level: 'read', instance_ids: null }
    ],
    pagination: { page: 1, per_page: 25, total: 2 }
  }, 'newest first; expired grants and other people\'s are left out; a nameless client shows its id; no recorded choice is read only; no tool call yet')

  const theirs = await app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(member.token) })
  t.same(theirs.json().grants.map((g: { id: string }) => g.id), ['grant-member'])
  t.equal((await app.inject({ method: 'GET', url: '/api/oauth/grants' })).statusCode, 401)
})

t.test('revoke: only one\'s own grant; it and its tokens are deleted, and the feed says so', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const stranger = await signup(app)
  await connectAgent(app, admin.user.id, 'grant-mine', { clientName: 'Cursor', tokenIat: T0 })
  await connectAgent(app, admin.user.id, 'grant-keep', { clientName: 'Inspector', tokenIat: T0 })
  await connectAgent(app, member.user.id, 'grant-member', { clientName: 'Colleague agent', tokenIat: T0 })
  await connectAgent(app, stranger.user.id, 'grant-stranger', { clientName: 'Stranger agent', tokenIat: T0 })
  const revoke = (token: string, id: string) => app.inject({ method: 'DELETE', url: `/api/oauth/grants/${id}`, headers: bearer(token) })

  for (const id of ['grant-member', 'grant-stranger', 'no-such-grant']) {
    const response = await revoke(admin.token, id)
    t.equal(response.statusCode, 404, id)
    t.equal(response.json().error.code, 'GRANT_NOT_FOUND', id)
  }
  t.same(await rowsOf(app, 'grant-member'), ['AuthorizationCode', 'Grant', 'RefreshToken', 'RefreshToken'], 'a colleague\'s grant is untouched')
  t.same(await rowsOf(app, 'grant-stranger'), ['AuthorizationCode', 'Grant', 'RefreshToken', 'RefreshToken'], 'another company\'s grant is untouched')

  const response = await revoke(admin.token, 'grant-mine')
  t.equal(response.statusCode, 200)
  t.same(response.json(), { success: true })
  t.same(await rowsOf(app, 'grant-mine'), [], 'the grant, its refresh tokens and codes are gone')
  t.same(await rowsOf(app, 'grant-keep'), ['AuthorizationCode', 'Grant', 'RefreshToken', 'RefreshToken'], 'other grants stay')
  const [client] = await app.sql({ text: "SELECT id FROM oidc_payloads WHERE kind = 'Client' AND id = 'client-grant-mine'", values: [] })
  t.ok(client, 'the registered client stays (it may be authorized again)')
  t.equal((await revoke(admin.token, 'grant-mine')).statusCode, 404, 'a second time: gone')
  t.equal((await revoke(admin.token, 'bad id!')).statusCode, 400, 'a malformed id')

  const feed = (await app.inject({ method: 'GET', url: '/api/activity', headers: bearer(admin.token) })).json().activities
  t.match(feed.filter((a: { type: string }) => a.type === 'oauth.grant_revoked'), [
    { type: 'oauth.grant_revoked', target_type: 'oauth_grant', target_id: 'grant-mine', title: /disconnected Cursor/, actor: { kind: 'user', id: admin.user.id } }
  ])
  t.equal(feed.filter((a: { type: string }) => a.type === 'oauth.grant_revoked').length, 1, 'refused attempts record nothing')
})

t.test('recordConnected writes oauth.grant_created in the caller\'s transaction', async (t) => {
  const { app, orm } = await build(t)
  const admin = await signup(app)
  const actor = await app.auth.authenticate(admin.token)
  await orm.em.fork().transactional(async (tx) => {
    app.oauth.grants.recordConnected(tx, { ...actor, kind: 'agent', clientName: 'Claude Code' }, 'Claude Code', 'grant-new')
  })
  await orm.em.fork().transactional(async (tx) => {
    app.oauth.grants.recordConnected(tx, actor, 'Rolled back', 'grant-x')
    throw new Error('rollback')
  }).catch(() => {})
  const feed = (await app.inject({ method: 'GET', url: '/api/activity?type=oauth.grant_created', headers: bearer(admin.token) })).json().activities
  t.match(feed, [{ type: 'oauth.grant_created', target_id: 'grant-new', title: /connected Claude Code/, actor: { kind: 'agent' } }])
  t.equal(feed.length, 1, 'nothing from the rolled-back transaction')
})
