import t from 'tap'
import fc from 'fast-check'
import { createAccessTokenVerifier } from '../../mcp/access-token.ts'
import { freshnessMs, revalidation } from '../../mcp/jwks-cache.ts'
import { startAuthServer } from '../../auth-server/server.ts'
import { JWKS_MAX_AGE_SECONDS } from '../../auth-server/provider.ts'
import { startTestAuthServer } from '../auth-server/helpers.ts'
import { accessToken, AUDIENCE, ISSUER, newSigningKey, startJwksServer } from './support-jwks.ts'

// The JWKS cache of /api/mcp over real HTTP: freshness from the answer's headers, ETag
// revalidation, an early fetch for a key it does not have, and the auth server's own headers.

/** A clock the test moves: the cache's idea of now (token expiry still uses the real time). */
function testClock () {
  let at = Date.now()
  return { now: () => at, advance: (ms: number) => { at += ms } }
}

const verifierAt = (url: URL, clock: { now: () => number }, jwksCooldownMs = 30_000) =>
  createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, keys: url, jwksCooldownMs, now: clock.now })

t.test('fresh for max-age, then revalidated with If-None-Match: a 304 keeps the keys', async (t) => {
  const jwks = await startJwksServer(t)
  jwks.cacheControl = 'public, max-age=60'
  jwks.etag = true
  const key = await newSigningKey()
  jwks.publish(key)
  const clock = testClock()
  const verify = verifierAt(jwks.url, clock)

  await verify(await accessToken(key))
  clock.advance(59_000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 1, 'within max-age: no request')

  clock.advance(2000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 2, 'past max-age: asked again')
  t.equal(jwks.conditional, 1, 'with the ETag')
  t.equal(jwks.notModified, 1, 'answered 304, and the token still verifies with the kept keys')

  clock.advance(30_000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 2, 'the 304 renewed the freshness')
})

t.test('max-age decides, not a fixed time: a short max-age is asked again sooner, no-cache after the floor', async (t) => {
  const jwks = await startJwksServer(t)
  const key = await newSigningKey()
  jwks.publish(key)
  jwks.cacheControl = 'max-age=10'
  const clock = testClock()
  const verify = verifierAt(jwks.url, clock)
  await verify(await accessToken(key))
  clock.advance(11_000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 2, 'ten seconds were ten seconds')

  jwks.cacheControl = 'no-cache'
  clock.advance(11_000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 3)
  for (let i = 0; i < 5; i++) await verify(await accessToken(key))
  t.equal(jwks.fetches, 3, 'no-cache still holds for the 5 s floor: not a fetch per token')
  clock.advance(5001)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 4)
})

t.test('a rotated key is fetched at once on two replicas, within max-age; made-up kids then wait for the cooldown', async (t) => {
  const jwks = await startJwksServer(t)
  jwks.cacheControl = 'max-age=3600'
  jwks.etag = true
  const first = await newSigningKey()
  jwks.publish(first)
  const clock = testClock()
  const replicas = [verifierAt(jwks.url, clock), verifierAt(jwks.url, clock)]
  for (const verify of replicas) await verify(await accessToken(first))
  t.equal(jwks.fetches, 2, 'one fetch per replica')

  // The auth server (any of its replicas) starts signing with a new key, published in the same JWKS.
  const next = await newSigningKey()
  jwks.publish(next)
  clock.advance(31_000)
  for (const verify of replicas) t.type((await verify(await accessToken(next))).jti, 'string', 'the new key verifies on each replica')
  t.equal(jwks.fetches, 4, 'each replica fetched once more, long before max-age')
  t.equal(jwks.notModified, 0, 'the set changed, so its ETag did')

  for (const verify of replicas) await t.rejects(verify(await accessToken(await newSigningKey('made-up'))))
  t.equal(jwks.fetches, 4, 'a made-up kid right after a fetch fetches nothing')
})

t.test('while the JWKS server fails, the keys already fetched keep verifying (asked again every few seconds)', async (t) => {
  const jwks = await startJwksServer(t)
  jwks.cacheControl = 'max-age=60'
  const key = await newSigningKey()
  jwks.publish(key)
  const clock = testClock()
  const verify = verifierAt(jwks.url, clock)
  await verify(await accessToken(key))
  jwks.failing = true
  clock.advance(61_000)
  t.type((await verify(await accessToken(key))).jti, 'string', 'stale keys serve while the server fails')
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 2, 'one failed attempt, then a pause')
  jwks.failing = false
  clock.advance(6000)
  await verify(await accessToken(key))
  t.equal(jwks.fetches, 3, 'asked again after the pause')
})

t.test('freshness: max-age minus Age, Expires, or the default, always within [5 s, 1 h]', async () => {
  fc.assert(fc.property(fc.nat(100_000), fc.nat(100_000), (maxAge, age) => {
    const ms = freshnessMs(new Headers({ 'cache-control': `public, max-age=${maxAge}`, age: String(age) }), 0, 1)
    return ms === Math.min(3_600_000, Math.max(5000, (maxAge - age) * 1000))
  }))
  fc.assert(fc.property(fc.integer({ min: -100_000, max: 100_000 }), (seconds) => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    const ms = freshnessMs(new Headers({ expires: new Date(now + seconds * 1000).toUTCString() }), now, 1)
    return ms === Math.min(3_600_000, Math.max(5000, seconds * 1000))
  }))
  fc.assert(fc.property(fc.nat(3_600_000), (fallback) => freshnessMs(new Headers(), 0, fallback) === Math.max(5000, fallback)))
})

t.test('the auth server sends Cache-Control and an ETag on its JWKS, and 304 to a matching If-None-Match', async (t) => {
  const helper = await startTestAuthServer(t)
  const server = await startAuthServer({ config: helper.config, port: 0, host: '127.0.0.1', log: () => {} })
  t.teardown(server.close)
  const url = `${server.url}/.well-known/jwks.json`
  const first = await fetch(url)
  t.equal(first.status, 200)
  t.equal(first.headers.get('cache-control'), `public, max-age=${JWKS_MAX_AGE_SECONDS}, must-revalidate`)
  const etag = first.headers.get('etag')
  t.match(etag, /^"[\w-]+"$/)
  t.ok(((await first.json()) as { keys: unknown[] }).keys.length > 0)

  const again = await fetch(url, { headers: revalidation(etag ?? '') })
  t.equal(again.status, 304, 'the same keys, asked as the portal\'s cache asks: not modified')
  t.equal(await again.text(), '')
  t.equal((await fetch(url, { headers: revalidation('"other"') })).status, 200, 'another ETag gets the keys')
})
