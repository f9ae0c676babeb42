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
import { requireDockerOrSkipLoudly, testImage, waitForHttp } from './support/docker/engine.ts'
import { dockerInstanceEnv, uniqueSubdomain } from './support/instances.ts'
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

engine.test('npm start with no DATABASE_URL: an instance is created, its ERP initialises its database on the embedded server, and opens at local_url', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-embedded-'))
  await chmod(dataDir, 0o755)
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const [port, pgPort] = [await freePort(), await freePort()]
  const instanceEnv = Object.fromEntries(Object.entries(dockerInstanceEnv(t)).map(([key, value]) => [key, String(value)]))
  const server = startServer({
    ...instanceEnv,
    // The stand-in ERP, which initialises and then serves its database through psql, as Odoo does.
    ERP_IMAGE: await testImage(),
    ERP_VERSIONS: '17.0',
    PORT: String(port),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    DEMO_ADMIN_PASSWORD: 'demo password 123'
  })
  t.teardown(() => { server.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, server, 120_000)
  const api = (path: string, init: RequestInit = {}, token?: string) => fetch(`http://127.0.0.1:${port}${path}`, {
    ...init, headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) }
  })
  const { token } = await (await api('/api/login', { method: 'POST', body: JSON.stringify({ login: 'admin@demo.example.com', password: 'demo password 123' }) })).json() as { token: string }
  const subdomain = uniqueSubdomain('embedded')
  t.teardown(async () => { await engine.docker.getContainer(`erp-${subdomain}`).remove({ force: true, v: true }).catch(() => {}) })
  const created = await api('/api/instances/create', { method: 'POST', body: JSON.stringify({ name: 'Shop', subdomain, erp_version: '17.0', backend: 'docker' }) }, token)
  t.equal(created.status, 202, `${await created.clone().text()}\n${server.output()}`)
  const { id } = (await created.json() as { instance: { id: number } }).instance

  let instance: { state: string, status_message: string | null, local_url: string | null } | undefined
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    instance = (await (await api(`/api/instances/${id}`, {}, token)).json() as { instance: typeof instance }).instance
    if (instance?.state === 'running' || instance?.state === 'error') break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  t.equal(instance?.state, 'running', `the ERP reached its database from its container: ${JSON.stringify(instance)}`)
  t.match(instance?.local_url, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.equal((await waitForHttp(`${instance!.local_url!}/web/health`, 10_000)).status, 200, 'its health answers from the database it initialised')
  t.notMatch(server.output(), 'Not ready for instances', 'the start-up check found nothing missing')

  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})
