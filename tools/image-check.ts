/**
 * `npm run check:image`: the container image, built and run as a deployment runs it.
 *
 *   test/support/docker/build-node-image.sh     the base image, from this machine's Node 24 (no registry)
 *   docker build -t erp-portal:check .          the Dockerfile at the root
 *   docker run --read-only --user …             portal on the machine's PostgreSQL (a new database)
 *
 * and checks: the image runs as a non-root user; the root filesystem can be read-only (only
 * DATA_DIR and /tmp are writable); /health/ready answers 200; the image's HEALTHCHECK turns
 * healthy on a PORT other than 3000 with no HEALTHCHECK_PORT (it follows the port served); `docker stop` (SIGTERM) ends it with exit code 0 well within the grace period. It
 * prints the image size, the time from `docker run` to ready, and the stop time.
 *
 * Long (the build copies node_modules between layers; minutes on the vfs storage driver): not
 * part of `npm test`. PostgreSQL: TEST_DATABASE_URL, reached over the host network.
 */
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const ROOT = resolve(import.meta.dirname, '..')
const TAG = process.env.IMAGE_TAG ?? 'erp-portal:check'
const STOP_GRACE_SECONDS = 30
const exec = promisify(execFile)

const adminUrl = process.env.TEST_DATABASE_URL
if (adminUrl === undefined || adminUrl === '') {
  console.error('check:image needs TEST_DATABASE_URL (a PostgreSQL server it may create a database on)')
  process.exit(2)
}

function run (command: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code) => { code === 0 ? resolvePromise() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)) })
  })
}

async function docker (...args: string[]): Promise<string> {
  return (await exec('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim()
}

async function admin (sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

async function until<T> (what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe().catch((error: unknown) => {
      if ((error as { fatal?: boolean }).fatal === true) throw error
      return undefined
    })
    if (value !== undefined) return value
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 250))
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`)
}

const database = `erp_image_check_${randomBytes(4).toString('hex')}`
const name = `erp-image-check-${process.pid}`
const port = 20_000 + Math.floor(Math.random() * 20_000)
try {
  console.log('--- base image')
  await run('bash', ['test/support/docker/build-node-image.sh'])
  console.log(`--- docker build -t ${TAG} .`)
  const buildStarted = Date.now()
  await run('docker', ['build', '-q', '-t', TAG, '.'])
  const buildSeconds = Math.round((Date.now() - buildStarted) / 1000)
  const size = Number(await docker('image', 'inspect', '--format', '{{.Size}}', TAG))
  const user = await docker('image', 'inspect', '--format', '{{.Config.User}}', TAG)
  if (user === '' || user.startsWith('0') || user.startsWith('root')) throw new Error(`the image runs as root (User: "${user}")`)

  await admin(`CREATE DATABASE ${pg.escapeIdentifier(database)}`)
  const databaseUrl = new URL(adminUrl)
  databaseUrl.pathname = `/${database}`
  const started = Date.now()
  await docker('run', '-d', '--name', name, '--network', 'host', '--read-only',
    '--tmpfs', '/var/lib/erp-portal:uid=10001,gid=10001', '--tmpfs', '/tmp',
    '-e', `DATABASE_URL=${databaseUrl.toString()}`, '-e', `PORT=${port}`,
    '-e', `BASE_URL=http://127.0.0.1:${port}`, '-e', 'HOST=127.0.0.1', '-e', 'LOG_LEVEL=warn',
    '--health-interval', '2s', TAG)
  await until('/health/ready did not answer 200', 120_000, async () => {
    const state = await docker('inspect', '--format', '{{.State.Status}}', name)
    if (state === 'exited') throw Object.assign(new Error('the container exited before it was ready'), { fatal: true })
    return (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200 ? true : undefined
  })
  const readySeconds = (Date.now() - started) / 1000
  await until('the HEALTHCHECK did not turn healthy', 60_000, async () =>
    (await docker('inspect', '--format', '{{.State.Health.Status}}', name)) === 'healthy' ? true : undefined)

  const stopStarted = Date.now()
  await docker('stop', '-t', String(STOP_GRACE_SECONDS), name)
  const stopSeconds = (Date.now() - stopStarted) / 1000
  const exitCode = Number(await docker('inspect', '--format', '{{.State.ExitCode}}', name))
  if (exitCode !== 0) throw new Error(`the container exited with ${exitCode} on SIGTERM`)
  if (stopSeconds >= STOP_GRACE_SECONDS) throw new Error(`the container needed the whole grace period (${stopSeconds} s): killed, not stopped`)

  console.log(`--- image ${TAG}: ${(size / 1e6).toFixed(0)} MB, user ${user}, built in ${buildSeconds} s`)
  console.log(`--- docker run to /health/ready: ${readySeconds.toFixed(1)} s (read-only root filesystem); healthy`)
  console.log(`--- docker stop (SIGTERM): exit 0 after ${stopSeconds.toFixed(1)} s`)
} catch (error) {
  // The service logs to stdout, Node's own crash report goes to stderr: show both.
  const logs = await exec('docker', ['logs', '--tail', '40', name], { maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout, stderr }) => `${stdout}${stderr}`.trim(), () => '')
  if (logs !== '') console.error(`--- container logs:\n${logs}`)
  console.error(`check:image failed: ${(error as Error).message}`)
  process.exitCode = 1
} finally {
  await docker('rm', '-f', name).catch(() => {})
  await admin(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`).catch(() => {})
}
