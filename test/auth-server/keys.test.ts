import { readFile } from 'node:fs/promises'
import t from 'tap'
import { createSigningKeyStore, signingKeysFile } from '../../auth-server/keys.ts'
import { tempDir } from './helpers.ts'

const jwtSecret = 's'.repeat(40)

t.test('the first key is generated once, stored encrypted, and reloaded unchanged', async (t) => {
  const dataDir = await tempDir(t)
  const first = await createSigningKeyStore({ dataDir, jwtSecret }).load()
  const again = await createSigningKeyStore({ dataDir, jwtSecret }).load()
  t.equal(again.signingKid, first.signingKid)
  t.same(again.jwks, first.jwks)
  t.equal(first.jwks.keys.length, 1)
  t.match(first.jwks.keys[0], { kty: 'RSA', alg: 'RS256', use: 'sig', kid: first.signingKid })
  const text = await readFile(signingKeysFile(dataDir), 'utf8')
  t.notMatch(text, /"d"|"kty"|"RSA"/, 'no key material in clear')
  t.notMatch(text, first.signingKid, 'not even the kid')
  await t.rejects(createSigningKeyStore({ dataDir, jwtSecret: 'o'.repeat(40) }).load(), /cannot be decrypted/)
})

t.test('concurrent first starts agree on one key', async (t) => {
  const dataDir = await tempDir(t)
  const loaded = await Promise.all([1, 2, 3].map(() => createSigningKeyStore({ dataDir, jwtSecret }).load()))
  t.equal(new Set(loaded.map((k) => k.signingKid)).size, 1)
})

t.test('rotate publishes a next key that does not sign; promote makes it sign and retires the old one', async (t) => {
  const dataDir = await tempDir(t)
  let clock = new Date('2030-01-01T00:00:00Z')
  const store = createSigningKeyStore({ dataDir, jwtSecret, now: () => clock })
  const initial = await store.load()

  await t.rejects(store.promote({ retainSeconds: 900 }), /no next key/)
  const next = await store.rotate()
  await t.rejects(store.rotate(), /already exists/)
  const rotated = await store.load()
  t.equal(rotated.signingKid, initial.signingKid, 'the old key still signs')
  t.same(rotated.jwks.keys.map((k) => k.kid), [initial.signingKid, next.kid], 'the next key is published, after the signing one')

  await store.promote({ retainSeconds: 900 })
  const promoted = await store.load()
  t.equal(promoted.signingKid, next.kid)
  t.same(promoted.jwks.keys.map((k) => k.kid), [next.kid, initial.signingKid], 'the old key stays published')
  t.same((await store.list()).map((k) => [k.kid, k.status]), [[initial.signingKid, 'retired'], [next.kid, 'current']])

  clock = new Date(clock.getTime() + 901_000)
  const later = await store.load()
  t.same(later.jwks.keys.map((k) => k.kid), [next.kid], 'retired keys leave the JWKS once tokens they signed expired')
})
