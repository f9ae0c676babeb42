/**
 * Restores load into a staged database beside the instance's, which takes its place only when
 * promoted: against the real PostgreSQL at TEST_DATABASE_URL.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { createErpDatabases, erpDatabaseNames } from '../../provisioning/erp-database.ts'
import { adminQuery } from '../support/database.ts'

const adminUrl = process.env.TEST_DATABASE_URL ?? ''
const dbs = createErpDatabases({ adminUrl, passwordKey: randomBytes(32) })
const id = randomUUID()
const names = erpDatabaseNames(id)
t.teardown(async () => { await dbs.drop(id); await dbs.close() })

async function on<T> (database: string, sql: string): Promise<T[]> {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try { return (await client.query(sql)).rows as T[] } finally { await client.end() }
}
const databasesNow = async (): Promise<string[]> => (await adminQuery('SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY 1', [`${names.database}%`])).rows.map((r: { datname: string }) => r.datname)

t.test('stage, load, promote; a load that never got promoted leaves the instance\'s database whole', async (t) => {
  await dbs.ensure(id)
  await on(names.database, "CREATE TABLE partners (name text); INSERT INTO partners VALUES ('before')")

  const staged = await dbs.stage(id)
  t.equal(staged.name, `${names.database}_restore`)
  t.equal(staged.user, names.role, 'the instance\'s own role, which the restore connects as')
  t.same(await on(staged.name, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), [{ n: 0 }], 'empty')
  await on(staged.name, 'CREATE TABLE half (x int)') // a load that fails half-way
  t.same(await on(names.database, 'SELECT name FROM partners'), [{ name: 'before' }], 'the instance\'s data untouched')

  const again = await dbs.stage(id)
  t.same(await on(again.name, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), [{ n: 0 }], 'a new attempt starts from an empty staged database')
  await on(again.name, "CREATE TABLE partners (name text); INSERT INTO partners VALUES ('restored')")
  await dbs.promote(id)
  t.same(await on(names.database, 'SELECT name FROM partners'), [{ name: 'restored' }])
  t.same(await databasesNow(), [names.database], 'nothing left beside it')
  await dbs.promote(id)
  t.same(await on(names.database, 'SELECT name FROM partners'), [{ name: 'restored' }], 'promoting again changes nothing')
  const owner = await adminQuery('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [names.database])
  t.equal(owner.rows[0].owner, names.role)
})

t.test('a promote cut off between its renames finishes when run again', async (t) => {
  await dbs.ensure(id)
  const staged = await dbs.stage(id)
  await on(staged.name, "CREATE TABLE marker (v text); INSERT INTO marker VALUES ('new')")
  await adminQuery(`ALTER DATABASE ${pg.escapeIdentifier(names.database)} RENAME TO ${pg.escapeIdentifier(`${names.database}_old`)}`)
  await dbs.promote(id)
  t.same(await on(names.database, 'SELECT v FROM marker'), [{ v: 'new' }])
  t.same(await databasesNow(), [names.database])
})

t.test('a restore that gave up: its staged database is dropped, unless it is all that is left of the instance\'s', async (t) => {
  await dbs.ensure(id)
  await on(names.database, "CREATE TABLE partners (name text); INSERT INTO partners VALUES ('live')")
  await dbs.stage(id)
  await dbs.discardStaged(id)
  t.same(await databasesNow(), [names.database], 'the staged copy is gone')
  t.same(await on(names.database, 'SELECT name FROM partners'), [{ name: 'live' }], 'the instance\'s own database untouched')
  await dbs.discardStaged(id)
  t.pass('nothing to drop is fine')

  const staged = await dbs.stage(id)
  await on(staged.name, "CREATE TABLE partners (name text); INSERT INTO partners VALUES ('restored')")
  await adminQuery(`ALTER DATABASE ${pg.escapeIdentifier(names.database)} RENAME TO ${pg.escapeIdentifier(`${names.database}_old`)}`) // a promote cut off half-way
  await dbs.discardStaged(id)
  t.same(await databasesNow(), [names.database + '_old', staged.name].sort(), 'kept: promoting again is what finishes the swap')
  await dbs.promote(id)
  t.same(await on(names.database, 'SELECT name FROM partners'), [{ name: 'restored' }])
})
