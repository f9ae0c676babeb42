/**
 * The two-command start serves real ERP instances: with DATABASE_URL unset, the
 * embedded PostgreSQL also listens where containers reach this machine, and a
 * container opens an instance's database over the very address and credentials
 * the instance is given (host.docker.internal through host-gateway). Only the
 * instances' roles get in from there: the server's own superuser does not.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createErpDatabases } from '../provisioning/erp-database.ts'
import { backupTestImage } from './support/backups.ts'
import { requireDockerOrSkipLoudly } from './support/docker/engine.ts'
import { demuxFrames } from '../provisioning/docker/logs.ts'
import { freePort, startServer, waitForReady } from './support/process.ts'

t.setTimeout(300_000)
const engine = await requireDockerOrSkipLoudly(t)

/** Runs `psql` in a throw-away container as an instance container is set up (the host alias through host-gateway). */
async function psqlInContainer (args: string[], password: string): Promise<{ code: number, output: string }> {
  const container = await engine.docker.createContainer({
    Image: await backupTestImage(),
    Entrypoint: ['psql', ...args],
    Env: [`PGPASSWORD=${password}`, 'PGCONNECT_TIMEOUT=5'],
    Labels: { 'erp.test-embedded-access': '1' },
    HostConfig: { ExtraHosts: ['host.docker.internal:host-gateway'] }
  })
  try {
    await container.start()
    const { StatusCode } = await container.wait() as { StatusCode: number }
    const output = demuxFrames(await container.logs({ stdout: true, stderr: true }) as unknown as Buffer).text
    return { code: StatusCode, output }
  } finally {
    await container.remove({ force: true })
  }
}

engine.test('npm start with no DATABASE_URL: a container opens its instance database on the embedded PostgreSQL', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-embedded-'))
  await chmod(dataDir, 0o755)
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [port, pgPort] = [await freePort(), await freePort()]
  const server = startServer({ PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), INSTANCE_BACKENDS: 'docker' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, server, 120_000)

  // The credentials an instance gets, made the way the provisioning job makes them, on the server npm start runs.
  const password = (await readFile(join(dataDir, 'secrets', 'postgres-password'), 'utf8')).trim()
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/erp_portal`
  const databases = createErpDatabases({ adminUrl, viaDockerHost: true, passwordKey: randomBytes(32) })
  const uid = randomUUID()
  t.teardown(async () => { await databases.drop(uid).catch(() => {}); await databases.close() })
  const credentials = await databases.ensure(uid)
  t.equal(credentials.host, 'host.docker.internal', 'the instance is told the Docker host alias')
  t.equal(credentials.port, pgPort)

  const opened = await psqlInContainer(['-h', credentials.host, '-p', String(credentials.port), '-U', credentials.user, '-d', credentials.name,
    '-tAc', 'SELECT current_user || \'@\' || current_database()'], credentials.password)
  t.equal(opened.code, 0, `psql from a container connects: ${opened.output}`)
  t.match(opened.output, `${credentials.user}@${credentials.name}`)

  const wrong = await psqlInContainer(['-h', credentials.host, '-p', String(credentials.port), '-U', credentials.user, '-d', credentials.name, '-c', 'SELECT 1'], 'not-the-password')
  t.not(wrong.code, 0, 'a wrong password is refused')
  t.match(wrong.output, /password authentication failed/)

  const admin = await psqlInContainer(['-h', credentials.host, '-p', String(credentials.port), '-U', 'postgres', '-d', 'postgres', '-c', 'SELECT 1'], password)
  t.not(admin.code, 0, 'the superuser cannot log in from a container, even with its password')
  t.match(admin.output, /no pg_hba\.conf entry/)

  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})
