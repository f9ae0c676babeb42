import t from 'tap'
import { AccessTokenRejected, createAccessTokenVerifier, SigningKeysUnavailable } from '../../mcp/access-token.ts'
import { accessToken, AUDIENCE, closedPortUrl, ISSUER, newSigningKey, startJwksServer } from './support-jwks.ts'

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection (promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

const verifierFor = (keys: URL, jwksCooldownMs?: number) =>
  createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, keys, ...(jwksCooldownMs === undefined ? {} : { jwksCooldownMs }) })

t.test('a verified token gives the claims /api/mcp looks up', async (t) => {
  const jwks = await startJwksServer(t)
  const key = await newSigningKey()
  jwks.publish(key)
  const sub = '0b6f3c1e-9a55-4c1b-8d0e-5a1f2b3c4d5e'
  const token = await accessToken(key, { sub, jti: 'jti-1', client_id: 'client-7', grant_id: 'grant-9' })
  const claims = await verifierFor(jwks.url)(token)
  t.match(claims, { sub, jti: 'jti-1', clientId: 'client-7', grantId: 'grant-9' })
  t.type(claims.exp, 'number')
})

t.test('the JWKS is fetched once and cached across many verifications', async (t) => {
  const jwks = await startJwksServer(t)
  const key = await newSigningKey()
  jwks.publish(key)
  const verify = verifierFor(jwks.url)
  const tokens = await Promise.all(Array.from({ length: 20 }, () => accessToken(key)))

  await Promise.all(tokens.slice(0, 10).map((token) => verify(token)))
  for (const token of tokens.slice(10)) await verify(token)
  t.equal(jwks.fetches, 1, '20 verifications, 10 of them concurrent, one fetch')
})

t.test('an unknown kid triggers one refetch, after which a newly published key verifies', async (t) => {
  const jwks = await startJwksServer(t)
  const first = await newSigningKey()
  jwks.publish(first)
  const verify = verifierFor(jwks.url, 0)
  await verify(await accessToken(first))
  t.equal(jwks.fetches, 1)

  const next = await newSigningKey()
  jwks.publish(next)
  const claims = await verify(await accessToken(next))
  t.type(claims.jti, 'string', 'a token signed with the new key verifies')
  t.equal(jwks.fetches, 2, 'the key set was fetched once more')

  await verify(await accessToken(next))
  await verify(await accessToken(first))
  t.equal(jwks.fetches, 2, 'both keys are now cached')
})

t.test('a kid nobody publishes is refused after one refetch', async (t) => {
  const jwks = await startJwksServer(t)
  const published = await newSigningKey()
  jwks.publish(published)
  const verify = verifierFor(jwks.url, 0)
  await verify(await accessToken(published))

  const error = await rejection(verify(await accessToken(await newSigningKey())))
  t.type(error, AccessTokenRejected)
  t.equal(jwks.fetches, 2)
})

t.test('within the cooldown, made-up kids cause no refetch (no JWKS flood)', async (t) => {
  const jwks = await startJwksServer(t)
  const published = await newSigningKey()
  jwks.publish(published)
  const verify = verifierFor(jwks.url) // the default cooldown
  await verify(await accessToken(published))

  for (let i = 0; i < 10; i++) {
    t.type(await rejection(verify(await accessToken(await newSigningKey(`made-up-${i}`)))), AccessTokenRejected)
  }
  t.equal(jwks.fetches, 1, 'ten unknown kids, still the one first fetch')
})

t.test('the JWKS server unreachable: a retryable 503, not a rejected token, and nothing crashes', async (t) => {
  const verify = verifierFor(await closedPortUrl(), 0)
  const key = await newSigningKey()
  const error = await rejection(verify(await accessToken(key))) as { code?: string, statusCode?: number }
  t.notOk(error instanceof AccessTokenRejected, 'the client is not told its token is bad')
  t.match(error, { code: SigningKeysUnavailable.code, statusCode: 503 })
})

t.test('the JWKS server failing: 503 while it fails, accepted once it recovers', async (t) => {
  const jwks = await startJwksServer(t)
  const key = await newSigningKey()
  jwks.publish(key)
  jwks.failing = true
  const verify = verifierFor(jwks.url, 0)
  const token = await accessToken(key)

  t.match(await rejection(verify(token)), { code: SigningKeysUnavailable.code, statusCode: 503 }, 'a 503 from the key set is passed on as retryable')
  jwks.failing = false
  const claims = await verify(token)
  t.type(claims.sub, 'string', 'the same verifier accepts the token once the keys can be fetched')
})
