import pg from 'pg'
import t from 'tap'
import { createPostgresAdapter } from '../../auth-server/adapter.ts'
import { withClientCache } from '../../auth-server/client-cache.ts'
import { createTestDatabase } from '../support/database.ts'

t.test('the PostgreSQL adapter keeps clients for a minute by default', async (t) => {
  const db = new pg.Pool({ connectionString: await createTestDatabase(t), max: 2 })
  db.on('error', () => {})
  t.teardown(() => db.end())
  const clients = createPostgresAdapter(db)('Client')
  await clients.upsert('kept', { client_id: 'kept', client_name: 'Kept' }, 3600)
  t.equal((await clients.find('kept'))?.client_name, 'Kept')
  await db.query("DELETE FROM oidc_payloads WHERE kind = 'Client' AND id = 'kept'")
  t.equal((await clients.find('kept'))?.client_name, 'Kept', 'read from the process\'s copy')
  t.equal(await createPostgresAdapter(db)('Grant').find('kept'), undefined, 'other kinds are not cached')
})

t.test('registered clients are kept for a short while per process, on top of the PostgreSQL adapter', async (t) => {
  const db = new pg.Pool({ connectionString: await createTestDatabase(t), max: 5 })
  db.on('error', () => {})
  t.teardown(() => db.end())
  const stored = createPostgresAdapter(db, { clientCacheMs: 0 })('Client')
  const rename = (id: string, name: string) =>
    db.query("UPDATE oidc_payloads SET payload = jsonb_set(payload, '{client_name}', to_jsonb($2::text)) WHERE kind = 'Client' AND id = $1", [id, name])

  t.test('a miss is not kept: a client registered a moment later is found', async (t) => {
    const clients = withClientCache(stored, 60_000)
    t.equal(await clients.find('late'), undefined)
    await stored.upsert('late', { client_id: 'late', client_name: 'Late' }, 3600)
    t.equal((await clients.find('late'))?.client_name, 'Late')
  })

  t.test('a hit is served from memory until it expires, then read again', async (t) => {
    const clients = withClientCache(stored, 200)
    await stored.upsert('c1', { client_id: 'c1', client_name: 'First' }, 3600)
    t.equal((await clients.find('c1'))?.client_name, 'First')
    t.equal((await rename('c1', 'Changed elsewhere')).rowCount, 1, 'renamed in the database')
    t.equal((await clients.find('c1'))?.client_name, 'First', 'within the TTL: the copy')
    await new Promise((resolve) => setTimeout(resolve, 250))
    t.equal((await clients.find('c1'))?.client_name, 'Changed elsewhere', 'after it: the database')
  })

  t.test('writes through the cache drop its copy at once', async (t) => {
    const clients = withClientCache(stored, 60_000)
    await clients.upsert('c2', { client_id: 'c2', client_name: 'Before' }, 3600)
    t.equal((await clients.find('c2'))?.client_name, 'Before')
    await clients.upsert('c2', { client_id: 'c2', client_name: 'After' }, 3600)
    t.equal((await clients.find('c2'))?.client_name, 'After')
    await clients.destroy('c2')
    t.equal(await clients.find('c2'), undefined)
  })

  t.test('callers get copies: changing one does not change what the next caller reads', async (t) => {
    const clients = withClientCache(stored, 60_000)
    await stored.upsert('c3', { client_id: 'c3', client_name: 'Original' }, 3600)
    const first = await clients.find('c3')
    if (first !== undefined) first.client_name = 'Mutated by a caller'
    t.equal((await clients.find('c3'))?.client_name, 'Original')
  })
})
