/**
 * `npm test`: provides PostgreSQL for the suite and runs tap.
 *
 * - The whole suite (no arguments) starts with `npm run lint` and stops on its errors; a run
 *   given arguments (test files, tap options) skips the linter, to stay quick.
 * - TEST_DATABASE_URL set: use that server (any database on it for admin work).
 * - otherwise: start an embedded PostgreSQL in a temporary folder, stopped after.
 *
 * It migrates one template database; each test file clones it (test/support/database.ts).
 * Extra arguments go to tap, e.g. `npm test -- test/routes/api/auth/login.test.ts`.
 */
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MikroORM } from '@mikro-orm/postgresql'
import pg from 'pg'
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../database/embedded.ts'
import { runMigrations } from '../database/migrate.ts'
import { seedCatalogs } from '../database/seed.ts'
import { createOrmConfig } from '../mikro-orm.config.ts'
import { withDatabase } from './support/database.ts'
import { dockerClient } from './support/docker/engine.ts'
import { removeLeftoverContainers } from './support/docker/leftover-containers.ts'
import { formatFailures, TapFailureCollector } from './support/tap-failures.ts'

if (process.argv.length === 2) {
  const lint = await run('npm', ['run', '--silent', 'lint'], process.env)
  if (lint !== 0) {
    console.log('# npm run lint found errors (above); `npm run lint:fix` fixes the style ones')
    process.exit(lint)
  }
}

let embedded: EmbeddedDatabase | undefined
let embeddedDir: string | undefined
let adminUrl = process.env.TEST_DATABASE_URL

if (adminUrl === undefined || adminUrl === '') {
  embeddedDir = await mkdtemp(join(tmpdir(), 'erp-portal-test-pg-'))
  await chmod(embeddedDir, 0o755) // mkdtemp makes it 0700; as root, PostgreSQL runs as `postgres` and must enter it
  const port = await freePort()
  console.log(`# TEST_DATABASE_URL is not set: starting an embedded PostgreSQL on port ${port}`)
  embedded = await startEmbeddedPostgres({ dataDir: embeddedDir, port, database: 'postgres' })
  adminUrl = embedded.url
}

const runId = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`
const template = `erp_tpl_${runId}`
let exitCode = 1
try {
  await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)}`)
  await admin(`CREATE DATABASE ${pg.escapeIdentifier(template)}`)
  const templateUrl = withDatabase(adminUrl, template)
  const orm = await MikroORM.init(createOrmConfig({ databaseUrl: templateUrl, poolMax: 2 }))
  await runMigrations(orm, templateUrl)
  await seedCatalogs(orm.em) // reference data every database has
  await orm.close()

  const env = { ...process.env, TEST_DATABASE_URL: adminUrl, TEST_TEMPLATE_DB: template, TEST_RUN_ID: runId }
  if (await tapNeedsBuild()) await run('tap', ['build'], env)
  const sweeper = await sweepLeftoverContainers()
  try {
    exitCode = await runTap(process.argv.slice(2), env)
  } finally {
    sweeper.stop()
  }
} finally {
  await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)} WITH (FORCE)`).catch(() => {})
  await dropLeftoverTestDatabases().catch(() => {})
  await embedded?.stop()
  if (embeddedDir !== undefined) await rm(embeddedDir, { recursive: true, force: true })
}
process.exit(exitCode)

async function admin (sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/**
 * When a Docker engine answers: removes what killed test processes left running, now and every
 * 10 s while tap runs (test/support/docker/leftover-containers.ts says why).
 */
async function sweepLeftoverContainers (): Promise<{ stop: () => void }> {
  const docker = dockerClient()
  const sweep = async (): Promise<void> => {
    const removed = await removeLeftoverContainers(docker)
    if (removed.length > 0) console.log(`# removed ${removed.length} containers of killed test processes: ${removed.join(', ')}`)
  }
  try {
    await Promise.race([docker.ping(), new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no answer')), 2000).unref())])
    await sweep()
  } catch {
    return { stop: () => {} } // no engine: the Docker tests skip or fail on their own
  }
  let running: Promise<void> = Promise.resolve()
  const timer = setInterval(() => { running = running.then(sweep).catch(() => {}) }, 10_000)
  return { stop: () => clearInterval(timer) }
}

/** Test files drop their databases in teardown; a crashed file may not have. */
async function dropLeftoverTestDatabases (): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [`erp_test_${runId}_`])
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

/**
 * tap rebuilds itself when its plugin set changes, but only after a run that
 * used the stale set. A fresh install ships a build with the TypeScript plugin
 * (which we switch off: Node strips types itself), so build once, up front,
 * and only then: concurrent runs sharing node_modules must not rebuild it.
 */
async function tapNeedsBuild (): Promise<boolean> {
  try {
    const built = await readFile(new URL('../node_modules/@tapjs/test/test-built/dist/esm/index.js', import.meta.url), 'utf8')
    return built.includes('@tapjs/typescript')
  } catch {
    return true
  }
}

/**
 * Runs tap, passing its output through, and ends with the failures, each
 * named by its file and subtests, then a plain "N passed, N failed" line
 * that any CI can read.
 */
function runTap (args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('tap', args, { stdio: ['inherit', 'pipe', 'inherit'], env })
    let tail = ''
    const failures = new TapFailureCollector()
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      process.stdout.write(chunk)
      tail = (tail + chunk).slice(-4096)
      failures.push(chunk)
    })
    child.on('error', reject)
    // 'close', not 'exit': the last of the output may still be in the pipe at exit.
    child.on('close', (code, signal) => {
      const failed = failures.end()
      if (failed.length > 0) console.log(`\n# what failed:\n${formatFailures(failed)}\n`)
      const summary = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?/.exec(tail)
      if (summary !== null) {
        const [, , pass = '0', fail = '0', skip] = summary
        console.log(`${pass} passed, ${fail} failed${skip === undefined ? '' : `, ${skip} skipped`}`)
      }
      resolve(code ?? (signal === null ? 1 : 128))
    })
  })
}

function run (command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env })
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })
}

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}
