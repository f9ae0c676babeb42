/**
 * One PostgreSQL database and one least-privilege login role per ERP instance,
 * on the server `adminUrl` points at. The admin role must be a superuser (or, on
 * PostgreSQL 16+, hold CREATEROLE and CREATEDB): it creates databases OWNED by
 * the instance roles and force-drops them.
 */
import pg from 'pg'
import { LOOPBACK_HOSTNAMES } from '../lib/loopback.ts'
import type { DatabaseCredentials } from './backend.ts'
import { DOCKER_HOST_ALIAS } from './docker/container-config.ts'
import { erpDatabaseNames, erpDatabasePassword, type ErpDatabaseNames } from './erp-database-names.ts'

export { erpDatabaseNames, type ErpDatabaseNames } from './erp-database-names.ts'

export interface ErpDatabasesOptions {
  /** A role allowed to CREATE ROLE / CREATE DATABASE on the ERP database server. */
  adminUrl: string
  /** The host the ERP process uses to reach that server (ERP_DATABASE_HOST); default: see erpDatabaseAddress. */
  instanceHost?: string
  /** Instances run in Docker containers: a loopback admin host means the Docker host. */
  viaDockerHost?: boolean
  /** Default: adminUrl's port (else 5432). */
  instancePort?: number
  /** At least 32 bytes; derives every role's password. */
  passwordKey: Buffer
  /** CONNECTION LIMIT of each instance role (default 64). */
  connectionLimit?: number
}

export interface ErpDatabases {
  /** The server as instances reach it (erpDatabaseAddress). */
  readonly host: string
  readonly port: number
  namesFor: (instanceId: string) => ErpDatabaseNames
  /** Creates what is missing, (re)sets the role's password and privileges; safe to run twice or concurrently. */
  ensure: (instanceId: string) => Promise<DatabaseCredentials>
  /** Drops the database (disconnecting its sessions) and the role; missing ones are fine. */
  drop: (instanceId: string) => Promise<void>
  /**
   * A fresh, empty database beside the instance's (`<name>_restore`, a leftover one dropped first),
   * owned by the instance's role: a restore loads into it while the instance's own stays whole.
   */
  stage: (instanceId: string) => Promise<DatabaseCredentials>
  /**
   * Puts the staged database in the instance's place and drops the one it replaces. Run again
   * after a crash it finishes the swap; without a staged database it changes nothing.
   */
  promote: (instanceId: string) => Promise<void>
  /**
   * Drops the staged database of a restore that has given up. Kept while the instance's own
   * database is missing: then only promoting it again can finish a swap cut off half-way.
   */
  discardStaged: (instanceId: string) => Promise<void>
  /** Bytes per instance id, in one query; instances without a database are absent. */
  sizes: (instanceIds: string[]) => Promise<Map<string, number>>
  /** True when both the database and the role exist. */
  exists: (instanceId: string) => Promise<boolean>
  close: () => Promise<void>
}

/**
 * How an ERP instance reaches the database server: `host` (ERP_DATABASE_HOST) when
 * given, else adminUrl's host, where a loopback host becomes the Docker host's
 * alias for containers; IPv6 without brackets (as libpq and Odoo's db_host take it).
 * The port is adminUrl's, else 5432.
 */
export function erpDatabaseAddress (adminUrl: string, options: { host?: string, viaDockerHost?: boolean } = {}): { host: string, port: number } {
  const admin = new URL(adminUrl)
  const adminHost = admin.hostname === '' ? 'localhost' : admin.hostname
  const host = options.host ?? (options.viaDockerHost === true && LOOPBACK_HOSTNAMES.has(adminHost) ? DOCKER_HOST_ALIAS : adminHost)
  return { host: host.replace(/^\[(.*)\]$/, '$1'), port: admin.port === '' ? 5432 : Number(admin.port) }
}

// Concurrent CREATE ROLE / CREATE DATABASE of the same name (the advisory lock makes these rare).
const ALREADY_THERE = new Set(['42710', '42P04', '23505'])

export function createErpDatabases (options: ErpDatabasesOptions): ErpDatabases {
  if (options.passwordKey.length < 32) throw new RangeError('passwordKey must be at least 32 bytes')
  const address = erpDatabaseAddress(options.adminUrl, { host: options.instanceHost, viaDockerHost: options.viaDockerHost })
  const host = address.host
  const port = options.instancePort ?? address.port
  const connectionLimit = options.connectionLimit ?? 64
  const pool = new pg.Pool({ connectionString: options.adminUrl, max: 2, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {}) // an idle connection dropped by the server; the pool replaces it

  /**
   * Runs `work` holding a session advisory lock per instance, so that two jobs
   * on the same instance (ALTER ROLE / GRANT race with "tuple concurrently
   * updated") take turns. Session-level because CREATE DATABASE cannot run in
   * a transaction; on error the connection is discarded, which frees the lock.
   */
  async function locked<T> (names: ErpDatabaseNames, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    const key = `erp-database:${names.database}`
    try {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key])
      const result = await work(client)
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
      client.release()
      return result
    } catch (error) {
      client.release(error as Error)
      throw error
    }
  }

  /**
   * PostgreSQL 15+ gives the public schema to pg_database_owner, whose rights a
   * NOINHERIT role does not use: the role gets the schema itself.
   */
  async function ownPublicSchema (names: ErpDatabaseNames): Promise<void> {
    const url = new URL(options.adminUrl)
    url.pathname = `/${names.database}`
    const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 })
    await client.connect()
    try {
      const { rows } = await client.query<{ owner: string }>("SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'public'")
      const owner = rows[0]?.owner
      if (owner !== undefined && owner !== names.role) await client.query(`ALTER SCHEMA public OWNER TO ${pg.escapeIdentifier(names.role)}`)
    } finally {
      await client.end()
    }
  }

  async function ignoringDuplicates (client: pg.PoolClient, sql: string): Promise<void> {
    try {
      await client.query(sql)
    } catch (error) {
      if (!ALREADY_THERE.has((error as { code?: string }).code ?? '')) throw error
    }
  }

  async function ensure (instanceId: string): Promise<DatabaseCredentials> {
    const names = erpDatabaseNames(instanceId)
    const password = erpDatabasePassword(options.passwordKey, instanceId)
    const role = pg.escapeIdentifier(names.role)
    const database = pg.escapeIdentifier(names.database)
    await locked(names, async (client) => {
      const found = await client.query<{ role: boolean, database: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS role,
                EXISTS (SELECT 1 FROM pg_database WHERE datname = $2) AS database`, [names.role, names.database])
      const { role: hasRole, database: hasDatabase } = found.rows[0] ?? { role: false, database: false }
      // The password only ever goes into ALTER ROLE, which does not fail: a failed
      // statement is written to the server log with its text.
      if (!hasRole) await ignoringDuplicates(client, `CREATE ROLE ${role}`)
      await client.query(`ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS ` +
        `CONNECTION LIMIT ${connectionLimit} PASSWORD ${pg.escapeLiteral(password)}`)
      if (!hasDatabase) {
        await ignoringDuplicates(client, `CREATE DATABASE ${database} OWNER ${role} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'`)
      }
      await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${database} FROM PUBLIC`)
      await client.query(`GRANT CONNECT ON DATABASE ${database} TO ${role}`)
      await ownPublicSchema(names)
    })
    return { host, port, name: names.database, user: names.role, password }
  }

  return {
    host,
    port,
    namesFor: erpDatabaseNames,

    ensure,

    async stage (instanceId) {
      const names = erpDatabaseNames(instanceId)
      const credentials = await ensure(instanceId) // the role, with its password
      const staged = { ...names, database: `${names.database}_restore` }
      const database = pg.escapeIdentifier(staged.database)
      await locked(names, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
        await client.query(`CREATE DATABASE ${database} OWNER ${pg.escapeIdentifier(names.role)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'`)
        await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${database} FROM PUBLIC`)
        await client.query(`GRANT CONNECT ON DATABASE ${database} TO ${pg.escapeIdentifier(names.role)}`)
      })
      await ownPublicSchema(staged)
      return { ...credentials, name: staged.database }
    },

    async promote (instanceId) {
      const names = erpDatabaseNames(instanceId)
      const [live, staged, old] = [names.database, `${names.database}_restore`, `${names.database}_old`]
      const id = pg.escapeIdentifier
      await locked(names, async (client) => {
        const present = async (name: string): Promise<boolean> => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
        if (await present(staged)) {
          if (await present(live)) {
            await client.query(`DROP DATABASE IF EXISTS ${id(old)} WITH (FORCE)`)
            await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [live])
            await client.query(`ALTER DATABASE ${id(live)} RENAME TO ${id(old)}`)
          }
          await client.query(`ALTER DATABASE ${id(staged)} RENAME TO ${id(live)}`)
        }
        await client.query(`DROP DATABASE IF EXISTS ${id(old)} WITH (FORCE)`)
      })
    },

    async discardStaged (instanceId) {
      const names = erpDatabaseNames(instanceId)
      await locked(names, async (client) => {
        // Never while the live database is missing: a promote cut off between its renames is finished by running it again, from the staged one.
        const live = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [names.database])
        if (live.rowCount === 1) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(`${names.database}_restore`)} WITH (FORCE)`)
      })
    },

    async drop (instanceId) {
      const names = erpDatabaseNames(instanceId)
      await locked(names, async (client) => {
        for (const name of [names.database, `${names.database}_restore`, `${names.database}_old`]) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
        await client.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(names.role)}`)
      })
    },

    async sizes (instanceIds) {
      const byDatabase = new Map(instanceIds.map((id) => [erpDatabaseNames(id).database, id]))
      const sizes = new Map<string, number>()
      if (byDatabase.size === 0) return sizes
      const { rows } = await pool.query<{ datname: string, bytes: string }>(
        'SELECT datname, pg_database_size(oid)::text AS bytes FROM pg_database WHERE datname = ANY($1::text[])', [[...byDatabase.keys()]])
      for (const row of rows) {
        const id = byDatabase.get(row.datname)
        if (id !== undefined) sizes.set(id, Number(row.bytes))
      }
      return sizes
    },

    async exists (instanceId) {
      const names = erpDatabaseNames(instanceId)
      const { rows } = await pool.query<{ ok: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND EXISTS (SELECT 1 FROM pg_database WHERE datname = $2) AS ok',
        [names.role, names.database])
      return rows[0]?.ok === true
    },

    async close () {
      await pool.end()
    }
  }
}
