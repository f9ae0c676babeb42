import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import pg from 'pg'
import t from 'tap'
import { createSigningKeyStore, legacySigningKeysFile, type StoredKey } from '../../auth-server/keys.ts'
import { createSealer } from '../../auth-server/keys-seal.ts'
import { createTestDatabase } from '../support/database.ts'
import { tempDir } from './helpers.ts'

const jwtSecret = 's'.repeat(40)

/** One pool per "replica": each store below could be another process on the same database. */
async function replicas (t: Parameters<typeof createTestDatabase>[0], count: number): Promise<pg.Pool[]> {
  const url = await createTestDatabase(t)
  return Array.from({ length: count }, () => {
    const pool = new pg.Pool({ connectionString: url, max: 3 })
    // An idle client the database's removal terminates (57P01) is not a failure of the test.
    pool.on('error', () => {})
    t.teardown(() => pool.end())
    return pool
  })
}

t.test('the first key is generated once, stored sealed in PostgreSQL, and every replica loads the same one', async (t) => {
  const [one, two] = await replicas(t, 2) as [pg.Pool, pg.Pool]
  const first = await createSigningKeyStore({ pool: one, jwtSecret }).load()
  const other = await createSigningKeyStore({ pool: two, jwtSecret }).load()
  t.equal(other.signingKid, first.signingKid, 'another replica signs with the same key')
  t.same(other.jwks, first.jwks, 'and publishes the same JWKS')
  t.equal(first.jwks.keys.length, 1)
  t.match(first.jwks.keys[0], { kty: 'RSA', alg: 'RS256', use: 'sig', kid: first.signingKid })
  const { rows } = await one.query<{ sealed: string }>('SELECT sealed FROM oidc_signing_keys')
  t.equal(rows.length, 1)
  t.notMatch(rows[0]?.sealed, /"d"|"kty"|"RSA"/, 'no key material in clear')
  t.notMatch(rows[0]?.sealed, first.signingKid, 'not even the kid')
  await t.rejects(createSigningKeyStore({ pool: two, jwtSecret: 'o'.repeat(40) }).load(), /cannot be decrypted \(was JWT_SECRET changed\?\)/)
})

t.test('concurrent first starts of several replicas agree on one key', async (t) => {
  const pools = await replicas(t, 4)
  const loaded = await Promise.all(pools.map((pool) => createSigningKeyStore({ pool, jwtSecret }).load()))
  t.equal(new Set(loaded.map((k) => k.signingKid)).size, 1)
})

t.test('rotate publishes a next key that does not sign; promote makes it sign and retires the old one; every replica sees it', async (t) => {
  const [one, two] = await replicas(t, 2) as [pg.Pool, pg.Pool]
  let clock = new Date('2030-01-01T00:00:00Z')
  const store = createSigningKeyStore({ pool: one, jwtSecret, now: () => clock })
  const replica = createSigningKeyStore({ pool: two, jwtSecret, now: () => clock })
  const initial = await store.load()

  await t.rejects(store.promote({ retainSeconds: 900 }), /no next key/)
  const next = await store.rotate()
  await t.rejects(replica.rotate(), /already exists/, 'the other replica sees the next key')
  const rotated = await replica.load()
  t.equal(rotated.signingKid, initial.signingKid, 'the old key still signs')
  t.same(rotated.jwks.keys.map((k) => k.kid), [initial.signingKid, next.kid], 'the next key is published, after the signing one')

  await store.promote({ retainSeconds: 900 })
  const promoted = await replica.load()
  t.equal(promoted.signingKid, next.kid, 'a replica restarted after promote signs with the new key')
  t.same(promoted.jwks.keys.map((k) => k.kid), [next.kid, initial.signingKid], 'the old key stays published')
  t.same((await replica.list()).map((k) => [k.kid, k.status]), [[initial.signingKid, 'retired'], [next.kid, 'current']])

  clock = new Date(clock.getTime() + 901_000)
  const later = await replica.load()
  t.same(later.jwks.keys.map((k) => k.kid), [next.kid], 'retired keys leave the JWKS once tokens they signed expired')
})

t.test('two operators rotating at once: one next key, the other is told', async (t) => {
  const [one, two] = await replicas(t, 2) as [pg.Pool, pg.Pool]
  await createSigningKeyStore({ pool: one, jwtSecret }).load()
  const results = await Promise.allSettled([one, two].map((pool) => createSigningKeyStore({ pool, jwtSecret }).rotate()))
  t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
  t.match(results.find((r) => r.status === 'rejected'), { reason: { message: /already exists/ } })
  t.equal((await createSigningKeyStore({ pool: one, jwtSecret }).list()).filter((k) => k.status === 'next').length, 1)
})

t.test('keys of an earlier version, in DATA_DIR/secrets, are taken over once, so tokens they signed stay valid', async (t) => {
  const [pool] = await replicas(t, 1) as [pg.Pool]
  const dataDir = await tempDir(t)
  const fresh = createSigningKeyStore({ pool: (await replicas(t, 1))[0] as pg.Pool, jwtSecret })
  const existing = await fresh.load()
  const file = legacySigningKeysFile(dataDir)
  await mkdir(dirname(file), { recursive: true })
  const keys: StoredKey[] = [{ kid: existing.signingKid, status: 'current', createdAt: '2030-01-01T00:00:00.000Z', jwk: existing.jwks.keys[0] as StoredKey['jwk'] }]
  await writeFile(file, createSealer(jwtSecret).seal({ keys }))

  const loaded = await createSigningKeyStore({ pool, jwtSecret, dataDir }).load()
  t.equal(loaded.signingKid, existing.signingKid, 'the file\'s key signs')
  t.equal(loaded.signingKid, (await createSigningKeyStore({ pool, jwtSecret }).load()).signingKid, 'and is in the database now, for replicas without the file')
})
