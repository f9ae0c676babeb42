/**
 * provisioning/erp-database.ts against the real PostgreSQL at TEST_DATABASE_URL.
 *
 * The test server trusts every local connection (pg_hba `trust`), so a login here does not
 * check the password: that the role's password is the returned one is proven from its SCRAM
 * verifier in pg_authid instead.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import pg from 'pg'
import t, { type Test } from 'tap'
import type { DatabaseCredentials } from '../../provisioning/backend.ts'
import { deriveKey, erpPasswordKey, jwtDerivedErpCredentialsKey, resolveErpCredentialsKey } from '../../lib/secrets.ts'
import { createErpDatabases, erpDatabaseAddress, erpDatabaseNames, type ErpDatabases } from '../../provisioning/erp-database.ts'
import { adminQuery } from '../support/database.ts'

const adminUrl = process.env.TEST_DATABASE_URL ?? ''
const passwordKey = randomBytes(32)
const created = new Set<string>()

function databases (t: Test, extra: Partial<Parameters<typeof createErpDatabases>[0]> = {}): ErpDatabases {
  const dbs = createErpDatabases({ adminUrl, passwordKey, ...extra })
  t.teardown(() => dbs.close())
  return dbs
}

function newInstance (): string {
  const id = randomUUID()
  created.add(id)
  return id
}

t.teardown(async () => {
  const cleaner = createErpDatabases({ adminUrl, passwordKey })
  for (const id of created) await cleaner.drop(id)
  await cleaner.close()
})

async function counts (id: string): Promise<{ databases: number, roles: number }> {
  const { database, role } = erpDatabaseNames(id)
  const { rows } = await adminQuery(`SELECT (SELECT count(*) FROM pg_database WHERE datname = $1)::int AS databases,
    (SELECT count(*) FROM pg_roles WHERE rolname = $2)::int AS roles`, [database, role])
  return rows[0] as { databases: number, roles: number }
}

async function connectAs (credentials: DatabaseCredentials, database = credentials.name): Promise<pg.Client> {
  const client = new pg.Client({ host: credentials.host, port: credentials.port, user: credentials.user, password: credentials.password, database })
  await client.connect()
  return client
}

/** Whether `password` matches the role's SCRAM-SHA-256 verifier (RFC 5802 StoredKey). */
async function passwordMatches (role: string, password: string): Promise<boolean> {
  const { rows } = await adminQuery('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [role])
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):/.exec(String(rows[0]?.rolpassword))
  if (match === null) return false
  const salted = pbkdf2Sync(password, Buffer.from(match[2] ?? '', 'base64'), Number(match[1]), 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  return createHash('sha256').update(clientKey).digest('base64') === match[3]
}

t.test('ensure twice: one database and one role, the same credentials both times', async (t) => {
  const dbs = databases(t)
  const id = newInstance()
  t.equal(await dbs.exists(id), false)
  const first = await dbs.ensure(id)
  const second = await dbs.ensure(id)
  t.same(second, first, 'deterministic: a retried job gets the same password')
  const url = new URL(adminUrl)
  t.match(first, { host: url.hostname, port: Number(url.port || 5432), name: erpDatabaseNames(id).database, user: erpDatabaseNames(id).role })
  t.ok(first.password.length >= 40, 'a 256-bit password')
  t.same(await counts(id), { databases: 1, roles: 1 })
  t.equal(await dbs.exists(id), true)
  t.ok(await passwordMatches(first.user, first.password), 'the role has the returned password')
  t.notOk(await passwordMatches(first.user, `${first.password}x`), 'the verifier check can fail')
})

t.test('five concurrent ensure calls (one process and three "replicas") make one of each, without error', async (t) => {
  const id = newInstance()
  const own = databases(t)
  const replicas = [databases(t), databases(t), databases(t)]
  const results = await Promise.all([own.ensure(id), own.ensure(id), ...replicas.map((dbs) => dbs.ensure(id))])
  t.equal(new Set(results.map((r) => JSON.stringify(r))).size, 1, 'all return the same credentials')
  t.same(await counts(id), { databases: 1, roles: 1 })
})

t.test('the role: its own database only, and no extra powers', async (t) => {
  const dbs = databases(t)
  const mine = await dbs.ensure(newInstance())
  const theirs = await dbs.ensure(newInstance())

  const client = await connectAs(mine)
  t.teardown(() => client.end())
  await client.query('CREATE TABLE res_partner (id serial PRIMARY KEY, name text)')
  await client.query("INSERT INTO res_partner (name) VALUES ('Acme')")
  t.same((await client.query('SELECT current_user, name FROM res_partner')).rows, [{ current_user: mine.user, name: 'Acme' }])
  await t.rejects(client.query('CREATE DATABASE erp_should_not_exist'), { code: '42501' }, 'cannot create databases')
  await t.rejects(client.query('CREATE ROLE erp_should_not_exist'), { code: '42501' }, 'cannot create roles')

  await t.rejects(connectAs(mine, theirs.name), { code: '42501' }, 'cannot connect to another instance\'s database')
  await t.rejects(connectAs(theirs, mine.name), { code: '42501' }, 'and the other way round')

  const { rows } = await adminQuery(`SELECT rolsuper, rolcreatedb, rolcreaterole, rolinherit, rolreplication, rolbypassrls, rolcanlogin, rolconnlimit
    FROM pg_roles WHERE rolname = $1`, [mine.user])
  t.same(rows[0], { rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolinherit: false, rolreplication: false, rolbypassrls: false, rolcanlogin: true, rolconnlimit: 64 })
  const acl = await adminQuery(`SELECT pg_get_userbyid(datdba) AS owner,
      has_database_privilege('public', oid, 'CONNECT') AS public_connect, has_database_privilege('public', oid, 'TEMP') AS public_temp
    FROM pg_database WHERE datname = $1`, [mine.name])
  t.same(acl.rows[0], { owner: mine.user, public_connect: false, public_temp: false })
})

t.test('ensure converges a role whose attributes or password were changed', async (t) => {
  const dbs = databases(t, { connectionLimit: 7 })
  const id = newInstance()
  const credentials = await dbs.ensure(id)
  await adminQuery(`ALTER ROLE ${pg.escapeIdentifier(credentials.user)} WITH CREATEDB PASSWORD 'changed'`)
  await dbs.ensure(id)
  const { rows } = await adminQuery('SELECT rolcreatedb, rolconnlimit FROM pg_roles WHERE rolname = $1', [credentials.user])
  t.same(rows[0], { rolcreatedb: false, rolconnlimit: 7 })
  t.ok(await passwordMatches(credentials.user, credentials.password))
})

t.test('drop removes the database (even with a session open) and the role; twice is fine', async (t) => {
  const dbs = databases(t)
  const id = newInstance()
  const credentials = await dbs.ensure(id)
  const session = await connectAs(credentials)
  session.on('error', () => {}) // terminated by DROP DATABASE … WITH (FORCE)
  await dbs.drop(id)
  t.same(await counts(id), { databases: 0, roles: 0 })
  t.equal(await dbs.exists(id), false)
  await dbs.drop(id)
  t.same(await counts(id), { databases: 0, roles: 0 })
  await session.end().catch(() => {})
})

t.test('sizes: bytes for existing databases, nothing for missing ones, in one query', async (t) => {
  const dbs = databases(t)
  const existing = newInstance()
  const missing = randomUUID()
  await dbs.ensure(existing)
  const sizes = await dbs.sizes([existing, missing])
  t.same([...sizes.keys()], [existing])
  t.ok((sizes.get(existing) ?? 0) > 0, `a positive size (${String(sizes.get(existing))} bytes)`)
  t.same(await dbs.sizes([]), new Map())
})

t.test('instanceHost / instancePort are what the credentials carry, and what the databases report', async (t) => {
  const dbs = databases(t, { instanceHost: 'host.docker.internal', instancePort: 6543 })
  const credentials = await dbs.ensure(newInstance())
  t.match(credentials, { host: 'host.docker.internal', port: 6543 })
  t.match(dbs, { host: 'host.docker.internal', port: 6543 })
  const bracketed = databases(t, { instanceHost: '[::1]' })
  t.equal(bracketed.host, '::1')
  t.equal((await bracketed.ensure(newInstance())).host, '::1', 'one address: the credentials and the databases agree')
})

t.test('erpDatabaseAddress: one answer for IPv4, host names and IPv6, with and without Docker', async (t) => {
  const cases: Array<[string, Parameters<typeof erpDatabaseAddress>[1], { host: string, port: number }]> = [
    ['postgres://erp@10.0.0.5:6543/postgres', {}, { host: '10.0.0.5', port: 6543 }],
    ['postgres://erp@10.0.0.5:6543/postgres', { viaDockerHost: true }, { host: '10.0.0.5', port: 6543 }],
    ['postgres://erp@db.example.com/postgres', {}, { host: 'db.example.com', port: 5432 }],
    ['postgres://erp@db.example.com/postgres', { viaDockerHost: true }, { host: 'db.example.com', port: 5432 }],
    ['postgres://erp@[::1]:5433/postgres', {}, { host: '::1', port: 5433 }],
    ['postgres://erp@[::1]:5433/postgres', { viaDockerHost: true }, { host: 'host.docker.internal', port: 5433 }],
    ['postgres://erp@[fd00::5]/postgres', { viaDockerHost: true }, { host: 'fd00::5', port: 5432 }],
    ['postgres://erp@127.0.0.1/postgres', {}, { host: '127.0.0.1', port: 5432 }],
    ['postgres://erp@127.0.0.1/postgres', { viaDockerHost: true }, { host: 'host.docker.internal', port: 5432 }],
    ['postgres://erp@localhost/postgres', { viaDockerHost: true }, { host: 'host.docker.internal', port: 5432 }],
    ['postgres:///postgres', {}, { host: 'localhost', port: 5432 }],
    ['postgres://erp@127.0.0.1/postgres', { host: 'db.internal', viaDockerHost: true }, { host: 'db.internal', port: 5432 }],
    ['postgres://erp@127.0.0.1/postgres', { host: '[fd00::7]' }, { host: 'fd00::7', port: 5432 }],
    ['postgres://erp@127.0.0.1/postgres', { host: 'fd00::7' }, { host: 'fd00::7', port: 5432 }]
  ]
  for (const [url, options, expected] of cases) t.same(erpDatabaseAddress(url, options), expected, `${url} ${JSON.stringify(options)}`)
})

t.test('ERP_CREDENTIALS_KEY: an installation with instances keeps their passwords, and rotating JWT_SECRET changes none', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-credentials-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const id = newInstance()
  // Before ERP_CREDENTIALS_KEY: the password key hung off JWT_SECRET.
  const jwtSecret = randomBytes(32).toString('base64url')
  const before = await databases(t, { passwordKey: deriveKey(jwtSecret, 'erp-database-passwords') }).ensure(id)

  // First start with the key: none configured, none in DATA_DIR, instances exist.
  const adopted = await resolveErpCredentialsKey({ DATA_DIR: dataDir }, { jwtSecret, hasInstances: async () => true })
  t.match(adopted, { origin: 'adopted', value: jwtDerivedErpCredentialsKey(jwtSecret), file: join(dataDir, 'secrets', 'erp-credentials-key') })
  t.notMatch(await readFile(adopted.file!, 'utf8'), jwtSecret, 'the file holds a derived key, never JWT_SECRET itself')
  const after = await databases(t, { passwordKey: erpPasswordKey(adopted.value) }).ensure(id)
  t.equal(after.password, before.password, 'the instance keeps its password')
  t.ok(await passwordMatches(before.user, before.password), 'and its role still accepts it (its container holds it)')

  // JWT_SECRET rotated: the key comes from DATA_DIR and does not follow.
  let asked = false
  const rotated = await resolveErpCredentialsKey({ DATA_DIR: dataDir }, { jwtSecret: randomBytes(32).toString('base64url'), hasInstances: async () => { asked = true; return true } })
  t.match(rotated, { origin: 'file', value: adopted.value })
  t.equal(asked, false, 'a stored key is used as it is')
  const afterRotation = await databases(t, { passwordKey: erpPasswordKey(rotated.value) }).ensure(id)
  t.equal(afterRotation.password, before.password, 'rotating JWT_SECRET does not touch the ERP password')
  t.ok(await passwordMatches(before.user, before.password))
})

t.test('ERP_CREDENTIALS_KEY: a new installation gets a random key; a configured one wins and writes nothing', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-credentials-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const jwtSecret = randomBytes(32).toString('base64url')
  const fresh = await resolveErpCredentialsKey({ DATA_DIR: dataDir }, { jwtSecret, hasInstances: async () => false })
  t.equal(fresh.origin, 'generated')
  t.not(fresh.value, jwtDerivedErpCredentialsKey(jwtSecret), 'not tied to JWT_SECRET')
  t.equal(erpPasswordKey(fresh.value).length, 32)
  t.equal((await resolveErpCredentialsKey({ DATA_DIR: dataDir }, { jwtSecret, hasInstances: async () => true })).value, fresh.value, 'kept across restarts')

  const otherDir = join(dataDir, 'other')
  const configured = Buffer.from(randomBytes(32)).toString('base64')
  const key = await resolveErpCredentialsKey({ ERP_CREDENTIALS_KEY: configured, DATA_DIR: otherDir }, { jwtSecret, hasInstances: async () => true })
  t.same(key, { value: configured, origin: 'configured' })
  t.equal(existsSync(otherDir), false)
  const id = newInstance()
  const a = await databases(t, { passwordKey: erpPasswordKey(configured) }).ensure(id)
  const b = await databases(t, { passwordKey: erpPasswordKey(Buffer.from(configured, 'base64').toString('base64url')) }).ensure(id)
  t.equal(a.password, b.password, 'base64 and base64url spell the same key')
})

t.test('the password depends on the key; a short key is refused', async (t) => {
  const id = newInstance()
  const a = await databases(t).ensure(id)
  const b = await databases(t, { passwordKey: randomBytes(32) }).ensure(id)
  t.not(a.password, b.password)
  t.throws(() => createErpDatabases({ adminUrl, passwordKey: randomBytes(16) }), RangeError)
})

t.test('namesFor: a valid identifier for every uuid, injective, case-insensitive, and only for uuids', async (t) => {
  const dbs = databases(t)
  const seen = new Map<string, string>()
  fc.assert(fc.property(fc.uuid(), (uuid) => {
    const { database, role } = dbs.namesFor(uuid)
    if (database !== role || !/^[a-z_][a-z0-9_]{0,62}$/.test(database)) return false
    if (pg.escapeIdentifier(database) !== `"${database}"`) return false
    if (dbs.namesFor(uuid.toUpperCase()).database !== database) return false
    const before = seen.get(database)
    seen.set(database, uuid.toLowerCase())
    return before === undefined || before === uuid.toLowerCase()
  }), { numRuns: 5000 })
  t.equal(new Set(seen.values()).size, seen.size, `${seen.size} distinct uuids, as many distinct names`)
  for (const bad of ['', 'x', 'erp"; DROP DATABASE postgres; --', `${randomUUID()}x`]) {
    t.throws(() => dbs.namesFor(bad), TypeError, `refuses ${JSON.stringify(bad)}`)
  }
})
