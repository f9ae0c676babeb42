/**
 * The PostgreSQL server and the throw-away database a bench run uses.
 *
 * Admin connection: BENCH_DATABASE_URL, else DATABASE_URL, else the local
 * default. If nothing answers there, an embedded PostgreSQL is started in a
 * temporary folder. Each run gets its own `erp_bench_<random>` database.
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MikroORM } from '@mikro-orm/postgresql'
import pg from 'pg'
import { startEmbeddedPostgres } from '../database/embedded.ts'
import { runMigrations } from '../database/migrate.ts'
import { seedCatalogs } from '../database/seed.ts'
import { createOrmConfig } from '../mikro-orm.config.ts'

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres'

/** Errors meaning "no server there", as opposed to a server that refused us. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN'])

export interface DatabaseServer {
  adminUrl: string
  description: string
  stop: () => Promise<void>
}

export interface BenchDatabase {
  url: string
  name: string
  drop: () => Promise<void>
}

export function withDatabase (url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

export async function provideServer (log: (line: string) => void): Promise<DatabaseServer> {
  const configured = [process.env.BENCH_DATABASE_URL, process.env.DATABASE_URL]
    .find((url) => url !== undefined && /^postgres(ql)?:\/\//.test(url))
  const adminUrl = configured ?? DEFAULT_ADMIN_URL
  try {
    await adminQuery(adminUrl, 'SELECT 1')
    return { adminUrl, description: `PostgreSQL at ${new URL(adminUrl).host}`, stop: async () => {} }
  } catch (error) {
    const code = (error as { code?: string }).code
    const timedOut = error instanceof Error && /timeout/i.test(error.message)
    if (!timedOut && (code === undefined || !UNREACHABLE.has(code))) throw error
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-bench-pg-'))
  // As root, PostgreSQL runs as the `postgres` system user, which must be able to enter the folder.
  if (process.getuid?.() === 0) await chmod(dataDir, 0o755)
  const port = await freePort()
  log(`no PostgreSQL answers at ${new URL(adminUrl).host}: starting an embedded one on port ${port}`)
  try {
    const embedded = await startEmbeddedPostgres({ dataDir, port, database: 'postgres' })
    return {
      adminUrl: embedded.url,
      description: `embedded PostgreSQL on port ${port}`,
      stop: async () => {
        await embedded.stop()
        await rm(dataDir, { recursive: true, force: true })
      }
    }
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true })
    throw error
  }
}

/** Creates a fresh database and applies the app's migrations to it. */
export async function createBenchDatabase (adminUrl: string): Promise<BenchDatabase> {
  const name = `erp_bench_${randomBytes(5).toString('hex')}`
  await adminQuery(adminUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  const database: BenchDatabase = {
    name,
    url: withDatabase(adminUrl, name),
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`).then(() => {})
  }
  try {
    // The app's ORM settings, minus the migrator's progress lines.
    const orm = await MikroORM.init({ ...createOrmConfig({ databaseUrl: database.url, poolMax: 2 }), logger: () => {} })
    try {
      await runMigrations(orm, database.url)
      await seedCatalogs(orm.em)
    } finally {
      await orm.close()
    }
  } catch (error) {
    await database.drop().catch(() => {})
    throw error
  }
  return database
}

async function adminQuery (url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return await client.query(sql)
  } finally {
    await client.end()
  }
}

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}
