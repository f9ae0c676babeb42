import pg from 'pg'
import t from 'tap'
import { errors } from 'oidc-provider'
import { cleanupExpired, createPostgresAdapter } from '../../auth-server/adapter.ts'
import { createTestDatabase } from '../support/database.ts'

async function pool (t: Parameters<typeof createTestDatabase>[0]): Promise<pg.Pool> {
  const p = new pg.Pool({ connectionString: await createTestDatabase(t), max: 25 })
  p.on('error', () => {}) // idle clients cut off when the test database is dropped
  t.teardown(() => p.end())
  return p
}

t.test('20 concurrent consumes of one code: exactly one succeeds, the others throw InvalidGrant', async (t) => {
  const db = await pool(t)
  const codes = createPostgresAdapter(db)('AuthorizationCode')
  await codes.upsert('code-1', { grantId: 'g1', clientId: 'c' }, 60)
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => codes.consume('code-1')))
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 1)
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
  t.equal(rejected.length, 19)
  for (const r of rejected) {
    t.ok(r.reason instanceof errors.InvalidGrant, 'InvalidGrant')
    t.equal(r.reason.error, 'invalid_grant')
  }
  const found = await codes.find('code-1')
  t.type(found?.consumed, 'number', 'find reports the consumption as epoch seconds')
  await codes.upsert('code-1', { grantId: 'g1', clientId: 'c' }, 60)
  t.type((await codes.find('code-1'))?.consumed, 'number', 're-saving does not revive a consumed row')
})

t.test('find, findByUid and findByUserCode ignore expired rows; kinds are separate', async (t) => {
  const db = await pool(t)
  const adapter = createPostgresAdapter(db)
  const sessions = adapter('Session')
  await sessions.upsert('live', { uid: 'u-live', accountId: 'a' }, 60)
  await sessions.upsert('old', { uid: 'u-old' }, 60)
  await db.query("UPDATE oidc_payloads SET expires_at = now() - interval '1 second' WHERE id = 'old'")
  t.same(await sessions.find('live'), { uid: 'u-live', accountId: 'a' })
  t.same(await sessions.findByUid('u-live'), { uid: 'u-live', accountId: 'a' })
  t.equal(await sessions.find('old'), undefined)
  t.equal(await sessions.findByUid('u-old'), undefined)
  t.equal(await adapter('Grant').find('live'), undefined)
  const devices = adapter('DeviceCode')
  await devices.upsert('d', { userCode: 'ABCD' }, 60)
  t.same(await devices.findByUserCode('ABCD'), { userCode: 'ABCD' })
  const error = await adapter('AuthorizationCode').consume('old').then(() => undefined, (e: unknown) => e)
  t.ok(error instanceof errors.InvalidGrant, 'an unknown (here: expired) code is not consumed')
})

t.test('destroy and revokeByGrantId delete rows of their kind', async (t) => {
  const db = await pool(t)
  const adapter = createPostgresAdapter(db)
  await adapter('RefreshToken').upsert('r1', { grantId: 'g' }, 60)
  await adapter('RefreshToken').upsert('r2', { grantId: 'other' }, 60)
  await adapter('AccessToken').upsert('a1', { grantId: 'g' }, 60)
  await adapter('RefreshToken').revokeByGrantId('g')
  t.equal(await adapter('RefreshToken').find('r1'), undefined)
  t.ok(await adapter('RefreshToken').find('r2'))
  t.ok(await adapter('AccessToken').find('a1'), 'other kinds are revoked by their own call')
  await adapter('AccessToken').destroy('a1')
  t.equal(await adapter('AccessToken').find('a1'), undefined)
})

t.test('cleanupExpired deletes expired payloads and revoked-token entries, in batches', async (t) => {
  const db = await pool(t)
  const adapter = createPostgresAdapter(db)('AccessToken')
  for (let i = 0; i < 7; i++) await adapter.upsert(`old-${i}`, {}, 60)
  await adapter.upsert('live', {}, 60)
  await db.query("UPDATE oidc_payloads SET expires_at = now() - interval '1 minute' WHERE id LIKE 'old-%'")
  await db.query("INSERT INTO oauth_revoked_tokens (jti, expires_at) VALUES ('gone', now() - interval '1 minute'), ('kept', now() + interval '1 hour')")
  t.equal(await cleanupExpired(db, { batchSize: 3 }), 8)
  const { rows } = await db.query<{ id: string }>('SELECT id FROM oidc_payloads')
  t.same(rows.map((r) => r.id), ['live'])
  const revoked = await db.query<{ jti: string }>('SELECT jti FROM oauth_revoked_tokens')
  t.same(revoked.rows.map((r) => r.jti), ['kept'])
})
