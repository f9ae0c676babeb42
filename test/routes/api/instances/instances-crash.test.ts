import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createTestDatabase } from '../../../support/database.ts'
import { dockerClient, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain } from '../../../support/instances.ts'
import { freePort, startServer, waitForReady, type Running } from '../../../support/process.ts'
import { TEST_JWT_SECRET } from '../../../support/build.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

async function query<Row> (url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, values)).rows as Row[]
  } finally {
    await client.end()
  }
}

docker.test('killing the process in the middle of provisioning: the next start finishes the job, with one container and one database', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  t.teardown(() => cleanupInstances(databaseUrl))
  const dataDir = mkdtempSync(join(tmpdir(), 'erp-crash-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, SEED_DEMO: 'false',
    JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1',
    ...Object.fromEntries(Object.entries(dockerInstanceEnv(t)).map(([key, value]) => [key, String(value)]))
  }
  const servers: Running[] = []
  t.teardown(() => { for (const server of servers) server.child.kill('SIGKILL') })
  const start = async () => {
    const server = startServer(env)
    servers.push(server)
    await waitForReady(`http://127.0.0.1:${port}/health/ready`, server)
    return server
  }
  const api = async (path: string, body?: unknown, token?: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, json: await response.json() as Record<string, any> }
  }

  const first = await start()
  const signup = await api('/api/signup', { company: 'Crash Co', subdomain: uniqueSubdomain('crash'), name: 'Ada', email: `ada-${port}@example.com`, password: 'correct horse battery staple' })
  const token = signup.json.token as string
  const subdomain = uniqueSubdomain('mid')
  const created = await api('/api/instances/create', { name: 'Mid-job', subdomain, erp_version: '17.0', backend: 'docker' }, token)
  t.equal(created.status, 202)
  const id = created.json.instance.id as number

  // The container exists but is not healthy yet: the job is between provision and readiness.
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (await dockerClient().getContainer(`erp-${subdomain}`).inspect().then(() => true, () => false)) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  first.child.kill('SIGKILL')
  await first.exited
  const [job] = await query<{ state: string }>(databaseUrl, "SELECT state FROM pgboss.job WHERE name = 'instance-actions'")
  const [before] = await query<{ state: string }>(databaseUrl, 'SELECT state FROM instances WHERE id = $1', [id])
  t.equal(job?.state, 'active', 'the job was in flight when the process died')
  t.equal(before?.state, 'provisioning')

  await start()
  const until = Date.now() + 90_000
  let state = 'provisioning'
  while (Date.now() < until && state === 'provisioning') {
    await new Promise((resolve) => setTimeout(resolve, 250))
    state = (await api(`/api/instances/${id}/status`, undefined, token)).json.state
  }
  t.equal(state, 'running', 'the retried job finished it')
  const [retried] = await query<{ state: string, retry_count: number }>(databaseUrl, "SELECT state, retry_count FROM pgboss.job WHERE name = 'instance-actions'")
  t.match(retried, { state: 'completed' })
  t.ok(retried!.retry_count >= 1, 'it completed on a retry')
  const [{ uid }] = await query<{ uid: string }>(databaseUrl, 'SELECT uid FROM instances WHERE id = $1', [id]) as [{ uid: string }]
  const containers = await dockerClient().listContainers({ all: true, filters: { label: [`erp.instance-id=${uid}`] } })
  t.equal(containers.length, 1, 'exactly one container')
  const databases = await query(databaseUrl, 'SELECT 1 FROM pg_database WHERE datname = $1', [`erp_${uid.replaceAll('-', '')}`])
  t.equal(databases.length, 1, 'exactly one database')
})
