import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import t from 'tap'
import { BASE_URL, MCP, register, startTestAuthServer } from './helpers.ts'
import { createUser, grantExists, issueCode, pkcePair, redeem, refresh, REDIRECT, registerClient, revoke, revokeRequest } from './token-support.ts'

t.test('authorization code exchange', async (t) => {
  const server = await startTestAuthServer(t)
  const user = await createUser(server)
  const clientId = await registerClient(server)
  const jwksResponse = await fetch(`${server.url}/.well-known/jwks.json`)
  const jwks = createLocalJWKSet(await jwksResponse.json() as Parameters<typeof createLocalJWKSet>[0])

  for (const resource of [undefined, MCP, `${MCP}/`]) {
    t.test(`code → tokens, resource ${resource ?? 'omitted'}`, async (t) => {
      const { verifier, challenge } = pkcePair()
      const { code } = await issueCode(server, clientId, user.id, challenge)
      const { status, body } = await redeem(server, clientId, code, verifier, resource === undefined ? {} : { resource })
      t.equal(status, 200, JSON.stringify(body))
      t.match(body, { token_type: 'Bearer', expires_in: 900, scope: 'mcp' })
      t.type(body.refresh_token, 'string')
      t.notOk(body.refresh_token.includes('.'), 'refresh token is opaque')
      t.match(decodeProtectedHeader(body.access_token), { typ: 'at+jwt', alg: 'RS256', kid: server.keys.signingKid })
      const { payload } = await jwtVerify(body.access_token, jwks, { issuer: BASE_URL, audience: MCP, typ: 'at+jwt' })
      t.match(payload, { iss: BASE_URL, aud: MCP, sub: user.id, scope: 'mcp', client_id: clientId, email: user.email, name: user.name })
      t.type(payload.jti, 'string')
      t.equal((payload.exp ?? 0) - (payload.iat ?? 0), 900)
    })
  }

  t.test('no tokens for a deactivated person or a suspended company', async (t) => {
    for (const [what, change] of [
      ['deactivated person', 'UPDATE users SET active = false WHERE id = $1'],
      ['suspended company', "UPDATE tenants SET status = 'suspended' WHERE id = (SELECT tenant_id FROM users WHERE id = $1)"]
    ] as const) {
      const person = await createUser(server)
      const { verifier, challenge } = pkcePair()
      const { code } = await issueCode(server, clientId, person.id, challenge)
      await server.pool.query(change, [person.id])
      const { status, body } = await redeem(server, clientId, code, verifier)
      t.equal(status, 400, what)
      t.equal(body.error, 'invalid_grant', what)
      t.notOk(body.access_token, `${what}: no access token`)
    }
  })

  t.test('an exchange reads its code, grant and account in one statement, then consumes the code and stores the refresh token in one: two statements in all', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code } = await issueCode(server, clientId, user.id, challenge)
    const statements: string[] = []
    const original = server.pool.query
    server.pool.query = ((...args: unknown[]) => {
      const statement = args[0] as { name?: string, text?: string } | string
      statements.push(typeof statement === 'string' ? statement : statement.name ?? statement.text ?? '')
      return (original as (...a: unknown[]) => unknown).apply(server.pool, args)
    }) as typeof original
    try {
      const { status } = await redeem(server, clientId, code, verifier)
      t.equal(status, 200)
    } finally {
      server.pool.query = original
    }
    t.same(statements, ['oidc-find-code-with-grant-and-account', 'oidc-consume-code-store-token'],
      'the code (with its grant and account), then its consumption with the refresh token')
    const { rows: [row] } = await server.pool.query<{ consumed: boolean }>(
      `SELECT consumed_at IS NOT NULL AS consumed FROM oidc_payloads WHERE kind = 'AuthorizationCode' AND id = $1`, [code])
    t.equal(row?.consumed, true, 'the code is consumed')
  })

  t.test('no tokens once the grant is gone (disconnected between consent and exchange)', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    await server.pool.query(`DELETE FROM oidc_payloads WHERE kind = 'Grant' AND id = $1`, [grantId])
    const { status, body } = await redeem(server, clientId, code, verifier)
    t.equal(status, 400)
    t.equal(body.error, 'invalid_grant')
    t.notOk(body.access_token)
  })

  t.test('PKCE verifier mismatch → invalid_grant', async (t) => {
    const { challenge } = pkcePair()
    const { code } = await issueCode(server, clientId, user.id, challenge)
    const { status, body } = await redeem(server, clientId, code, pkcePair().verifier)
    t.equal(status, 400)
    t.equal(body.error, 'invalid_grant')
  })

  t.test('a verifier for a code issued without a challenge is rejected', async (t) => {
    const { code } = await issueCode(server, clientId, user.id, undefined)
    const { status, body } = await redeem(server, clientId, code, pkcePair().verifier)
    t.equal(status, 400)
    t.equal(body.error, 'invalid_grant')
  })

  t.test('10 concurrent redemptions of one code: exactly one wins', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    const results = await Promise.all(Array.from({ length: 10 }, () => redeem(server, clientId, code, verifier)))
    t.equal(results.filter((r) => r.status === 200).length, 1)
    for (const r of results.filter((r) => r.status !== 200)) {
      t.equal(r.status, 400)
      t.equal(r.body.error, 'invalid_grant')
      t.notOk('access_token' in r.body)
    }
    const { rows: [row] } = await server.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM oidc_payloads WHERE kind = 'RefreshToken' AND grant_id = $1`, [grantId])
    // A loser that read the code after the winner consumed it takes it for a replay and revokes the grant (tokens included).
    t.ok((row?.count ?? 0) <= 1, 'at most the winner\'s refresh token: a loser stores none')
  })

  t.test('a client that takes no refresh tokens: the code is still consumed before the answer', async (t) => {
    const { status: registered, body: client } = await register(server.url, { redirect_uris: [REDIRECT], client_name: 'No refresh', grant_types: ['authorization_code'] })
    t.equal(registered, 201, JSON.stringify(client))
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, client.client_id as string, user.id, challenge)
    const first = await redeem(server, client.client_id as string, code, verifier)
    t.equal(first.status, 200, JSON.stringify(first.body))
    t.notOk('refresh_token' in first.body, 'no refresh token')
    const replay = await redeem(server, client.client_id as string, code, verifier)
    t.equal(replay.body.error, 'invalid_grant', 'the code was consumed')
    t.notOk(await grantExists(server, grantId), 'and its replay revokes the grant')
  })

  t.test('an exchange that fails after taking its code still consumes it', async (t) => {
    const person = await createUser(server)
    const { verifier, challenge } = pkcePair()
    const { code } = await issueCode(server, clientId, person.id, challenge)
    await server.pool.query('UPDATE users SET active = false WHERE id = $1', [person.id])
    t.equal((await redeem(server, clientId, code, verifier)).body.error, 'invalid_grant', 'refused: the person is deactivated')
    await server.pool.query('UPDATE users SET active = true WHERE id = $1', [person.id])
    const again = await redeem(server, clientId, code, verifier)
    t.equal(again.body.error, 'invalid_grant', 'the code cannot be used once the person is back')
  })

  t.test('a replayed code revokes the grant', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    t.equal((await redeem(server, clientId, code, verifier)).status, 200)
    const replay = await redeem(server, clientId, code, verifier)
    t.equal(replay.body.error, 'invalid_grant')
    t.notOk(await grantExists(server, grantId))
  })

  t.test('revoking the JWT access token puts its jti on the denylist until exp', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    const { body } = await redeem(server, clientId, code, verifier)
    const { payload } = await jwtVerify(body.access_token, jwks)
    t.equal(await revoke(server, clientId, body.access_token), 200)
    const { rows } = await server.pool.query<{ jti: string, exp: number }>('SELECT jti, extract(epoch FROM expires_at)::int AS exp FROM oauth_revoked_tokens')
    t.same(rows, [{ jti: payload.jti, exp: payload.exp }])
    t.ok(await grantExists(server, grantId), 'revoking an access token keeps the grant')
  })

  t.test('another client cannot revoke the tokens: unauthorized_client, and they keep working (RFC 7009 2.1)', async (t) => {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    const { body } = await redeem(server, clientId, code, verifier)
    const other = await registerClient(server)
    await server.pool.query('DELETE FROM oauth_revoked_tokens')
    for (const token of [body.access_token, body.refresh_token]) {
      t.same(await revokeRequest(server, other, token), {
        status: 400, body: { error: 'unauthorized_client', error_description: 'the token was not issued to this client' }
      })
    }
    t.equal((await server.pool.query('SELECT 1 FROM oauth_revoked_tokens')).rowCount, 0, 'the access token is not on the denylist')
    t.ok(await grantExists(server, grantId), 'the grant stands')
    const refreshed = await refresh(server, clientId, body.refresh_token)
    t.equal(refreshed.status, 200, 'the refresh token still works')
    t.equal(await revoke(server, 'no-such-client', refreshed.body.refresh_token as string), 401, 'an unknown client is invalid_client')
    t.equal(await revoke(server, other, 'not-a-token'), 200, 'an unknown token is still 200')
  })
})
