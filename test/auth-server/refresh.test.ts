import t from 'tap'
import { startTestAuthServer } from './helpers.ts'
import { createUser, grantExists, issueCode, pkcePair, redeem, refresh, registerClient, revoke } from './token-support.ts'

t.test('refresh tokens: rotation, grace window, reuse detection, revocation', async (t) => {
  const server = await startTestAuthServer(t) // OAUTH_REFRESH_GRACE_SECONDS defaults to 30
  const user = await createUser(server)
  const clientId = await registerClient(server)

  async function connect (): Promise<{ refreshToken: string, grantId: string }> {
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
    const { body } = await redeem(server, clientId, code, verifier)
    return { refreshToken: body.refresh_token as string, grantId }
  }

  async function rotatedAgo (refreshToken: string, seconds: number): Promise<void> {
    await server.pool.query(`UPDATE oidc_payloads SET consumed_at = now() - make_interval(secs => $2) WHERE kind = 'RefreshToken' AND id = $1`, [refreshToken, seconds])
  }

  t.test('each refresh rotates the refresh token and issues a new access token', async (t) => {
    const { refreshToken } = await connect()
    const first = await refresh(server, clientId, refreshToken)
    t.equal(first.status, 200)
    t.match(first.body, { token_type: 'Bearer', scope: 'mcp', expires_in: 900 })
    t.not(first.body.refresh_token, refreshToken)
    const second = await refresh(server, clientId, first.body.refresh_token)
    t.equal(second.status, 200)
    t.not(second.body.refresh_token, first.body.refresh_token)
  })

  t.test('a rotated token presented again within the window gets a new access token and the same successor', async (t) => {
    const { refreshToken, grantId } = await connect()
    const first = await refresh(server, clientId, refreshToken)
    const again = await refresh(server, clientId, refreshToken)
    t.equal(again.status, 200, JSON.stringify(again.body))
    t.equal(again.body.refresh_token, first.body.refresh_token, 'both callers hold the same refresh token')
    t.not(again.body.access_token, first.body.access_token)
    t.ok(await grantExists(server, grantId))
    const next = await refresh(server, clientId, again.body.refresh_token)
    t.equal(next.status, 200, 'the shared successor still works')
  })

  t.test('concurrent refreshes of one token all succeed and agree on the successor', async (t) => {
    const { refreshToken, grantId } = await connect()
    const results = await Promise.all(Array.from({ length: 5 }, () => refresh(server, clientId, refreshToken)))
    t.same(results.map((r) => r.status), [200, 200, 200, 200, 200], JSON.stringify(results.map((r) => r.body.error_description)))
    t.equal(new Set(results.map((r) => r.body.refresh_token)).size, 1)
    t.ok(await grantExists(server, grantId))
  })

  t.test('reuse after the window → invalid_grant and the grant is revoked', async (t) => {
    const { refreshToken, grantId } = await connect()
    const first = await refresh(server, clientId, refreshToken)
    await rotatedAgo(refreshToken, 31)
    const reuse = await refresh(server, clientId, refreshToken)
    t.equal(reuse.status, 400)
    t.equal(reuse.body.error, 'invalid_grant')
    t.notOk(await grantExists(server, grantId), 'grant revoked')
    const successor = await refresh(server, clientId, first.body.refresh_token)
    t.equal(successor.body.error, 'invalid_grant', 'the successor died with the grant')
  })

  t.test('revoking a refresh token ends its grant', async (t) => {
    const { refreshToken, grantId } = await connect()
    t.equal(await revoke(server, clientId, refreshToken), 200)
    t.notOk(await grantExists(server, grantId))
    t.equal((await refresh(server, clientId, refreshToken)).body.error, 'invalid_grant')
  })
})

t.test('a grace window of 0 disables the grace: immediate reuse revokes the grant', async (t) => {
  const server = await startTestAuthServer(t, { OAUTH_REFRESH_GRACE_SECONDS: 0 })
  const user = await createUser(server)
  const clientId = await registerClient(server)
  const { verifier, challenge } = pkcePair()
  const { code, grantId } = await issueCode(server, clientId, user.id, challenge)
  const { body } = await redeem(server, clientId, code, verifier)
  t.equal((await refresh(server, clientId, body.refresh_token)).status, 200)
  t.equal((await refresh(server, clientId, body.refresh_token)).body.error, 'invalid_grant')
  t.notOk(await grantExists(server, grantId))
})
