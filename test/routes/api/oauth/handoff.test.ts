import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { TEST_JWT_SECRET, build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { deriveKey } from '../../../../lib/secrets.ts'

/** What the auth server sends when HANDOFF_SECRET is unset: the key derived from JWT_SECRET. */
const DERIVED_SECRET = deriveKey(TEST_JWT_SECRET, 'oauth-handoff').toString('base64url')

const mint = (app: FastifyInstance, token: string, transaction: string, remoteAddress = '10.20.0.1') =>
  app.inject({ method: 'POST', url: '/api/oauth/handoff', headers: bearer(token), payload: { oauth_transaction: transaction }, remoteAddress })

const consume = (app: FastifyInstance, code: string, secret: string | null = DERIVED_SECRET) =>
  app.inject({
    method: 'POST',
    url: '/api/oauth/handoff/consume',
    headers: secret === null ? {} : { 'x-oauth-handoff-secret': secret },
    payload: { code }
  })

t.test('mint: a one-time code and the auth server URL; only its SHA-256 is stored, with a 60 s expiry', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const transaction = 'txn/with spaces&odd=chars'
  const response = await mint(app, admin.token, transaction)
  t.equal(response.statusCode, 200)
  const { success, handoff_code: code, redirect_url: redirectUrl } = response.json()
  t.equal(success, true)
  t.match(code, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url')
  t.equal(redirectUrl, `http://portal.test/oauth/handoff?oauth_transaction=${encodeURIComponent(transaction)}&handoff_code=${code}`)
  t.equal(new URL(redirectUrl).searchParams.get('oauth_transaction'), transaction, 'the transaction survives the URL')

  const rows = await app.sql<Record<string, unknown>>({ text: 'SELECT *, extract(epoch FROM expires_at - created_at)::int AS ttl FROM oauth_handoff_codes', values: [] })
  t.equal(rows.length, 1)
  const row = rows[0]!
  t.equal(row.code_hash, createHash('sha256').update(code).digest('hex'), 'the hash is stored')
  t.notMatch(JSON.stringify(rows), code, 'the plaintext code is nowhere in the table')
  t.match(row, { user_id: admin.user.id, tenant_id: admin.user.tenant_id, transaction, consumed_at: null, ttl: 60 })

  const second = (await mint(app, admin.token, transaction)).json().handoff_code
  t.not(second, code, 'every code is new')
})

t.test('mint: needs a member token and a transaction of 1-255 printable characters; limited per IP', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  t.equal((await app.inject({ method: 'POST', url: '/api/oauth/handoff', payload: { oauth_transaction: 'x' } })).statusCode, 401)
  t.equal((await mint(app, member.token, 'x')).statusCode, 200, 'a plain member may')
  t.equal((await mint(app, admin.token, '')).statusCode, 400)
  t.equal((await mint(app, admin.token, 'x'.repeat(256))).statusCode, 400)
  t.equal((await mint(app, admin.token, 'x'.repeat(255))).statusCode, 200)
  // Neither PostgreSQL nor encodeURIComponent takes these: a 400 in the envelope, not a 500
  // (NUL and lone surrogates are refused for every route before validation: INVALID_CHARACTER).
  for (const [transaction, code] of [['\ud800', 'INVALID_CHARACTER'], ['abc\udc00', 'INVALID_CHARACTER'], ['line\nbreak', 'VALIDATION_FAILED'], ['a\u0000b', 'INVALID_CHARACTER']]) {
    const response = await mint(app, admin.token, transaction as string)
    t.equal(response.statusCode, 400, JSON.stringify(transaction))
    t.match(response.json(), { success: false, error: { code } })
  }
  t.equal((await mint(app, admin.token, 'emoji \ud83d\ude00 is fine')).statusCode, 200, 'a surrogate pair is text')

  let status = 0
  for (let i = 0; i < 31; i++) status = (await mint(app, admin.token, `t${i}`, '10.20.9.9')).statusCode
  t.equal(status, 429, 'the 31st in a minute from one IP is refused')
  t.equal((await mint(app, admin.token, 't', '10.20.9.10')).statusCode, 200, 'another IP is not affected')
})

t.test('consume: the identity and the transaction, once', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app, { company: 'Handoff Corp' })
  const code = (await mint(app, admin.token, 'txn-1')).json().handoff_code
  const response = await consume(app, code)
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    success: true,
    user: { id: admin.user.id, email: admin.email, name: response.json().user.name, tenant_id: admin.user.tenant_id, tenant_name: 'Handoff Corp', role: 'admin' },
    oauth_transaction: 'txn-1'
  })
  t.match(response.json().user.name, /^Admin /)

  const again = await consume(app, code)
  t.equal(again.statusCode, 400, 'a used code')
  t.equal(again.json().error.code, 'HANDOFF_CODE_INVALID')
  t.ok(again.json().error.message.length > 10, 'with a message')
  t.equal((await consume(app, 'A'.repeat(43))).json().error.code, 'HANDOFF_CODE_INVALID', 'an unknown code')
})

t.test('consume: a wrong or missing secret is 401 and leaves the code usable', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const code = (await mint(app, admin.token, 'txn')).json().handoff_code
  for (const [label, secret] of [['missing', null], ['wrong', 'x'.repeat(43)], ['prefix', DERIVED_SECRET.slice(0, -1)], ['empty', '']] as const) {
    const response = await consume(app, code, secret)
    t.equal(response.statusCode, 401, label)
    t.equal(response.json().error.code, 'HANDOFF_SECRET_INVALID', label)
  }
  t.equal((await consume(app, code)).statusCode, 200, 'still usable with the right secret')
})

t.test('consume: HANDOFF_SECRET, when set, is the only secret accepted', async (t) => {
  const configured = 'a-configured-handoff-secret-of-40-characters'
  const { app } = await build(t, { env: { HANDOFF_SECRET: configured } })
  const admin = await signup(app)
  const code = (await mint(app, admin.token, 'txn')).json().handoff_code
  t.equal((await consume(app, code, DERIVED_SECRET)).statusCode, 401, 'the derived key no longer works')
  t.equal((await consume(app, code, configured)).statusCode, 200)
})

t.test('consume: an expired code is refused', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const code = (await mint(app, admin.token, 'txn')).json().handoff_code
  await app.sql({ text: "UPDATE oauth_handoff_codes SET expires_at = now() - interval '1 second'", values: [] })
  const response = await consume(app, code)
  t.equal(response.statusCode, 400)
  t.equal(response.json().error.code, 'HANDOFF_CODE_INVALID')
})

t.test('consume: 10 concurrent exchanges of one code, exactly one wins', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const code = (await mint(app, admin.token, 'txn')).json().handoff_code
  const responses = await Promise.all(Array.from({ length: 10 }, () => consume(app, code)))
  t.equal(responses.filter((r) => r.statusCode === 200).length, 1, 'one 200')
  t.equal(responses.filter((r) => r.statusCode === 400).length, 9, 'nine 400')
})

t.test('consume: a person deactivated, or a company suspended, since the code was minted is refused', async (t) => {
  const { app } = await build(t)
  const admin = await signup(app)
  const member = await addMember(app, admin.user.tenant_id)
  const memberCode = (await mint(app, member.token, 'txn')).json().handoff_code
  await app.sql({ text: 'UPDATE users SET active = false WHERE id = $1', values: [member.user.id] })
  const refused = await consume(app, memberCode)
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().error.code, 'ACCOUNT_DISABLED')
  await app.sql({ text: 'UPDATE users SET active = true WHERE id = $1', values: [member.user.id] })
  t.equal((await consume(app, memberCode)).statusCode, 400, 'the refused code is spent')

  const adminCode = (await mint(app, admin.token, 'txn')).json().handoff_code
  await app.sql({ text: "UPDATE tenants SET status = 'suspended' WHERE id = $1", values: [admin.user.tenant_id] })
  const suspended = await consume(app, adminCode)
  t.equal(suspended.statusCode, 403)
  t.equal(suspended.json().error.code, 'TENANT_SUSPENDED')
})

t.test('the consume route is in the OpenAPI document, public, with its schemas', async (t) => {
  const { app } = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
  const operation = doc.paths['/api/oauth/handoff/consume'].post
  t.same(operation.security, [], 'no bearer token: public, said explicitly')
  t.ok(operation.requestBody.content['application/json'].schema.properties.code, 'body schema')
  t.ok(operation.responses['200'].content['application/json'].schema.properties.oauth_transaction, 'response schema')
  t.ok(operation.parameters.some((p: { in: string, name: string }) => p.in === 'header' && p.name === 'x-oauth-handoff-secret'), 'the secret header')
  t.ok(doc.paths['/api/oauth/handoff'].post.security, 'minting needs a token')
})
