import t from 'tap'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createTestDatabase } from '../../../support/database.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain } from '../../../support/instances.ts'
import { backupTestImage, inFilestore } from '../../../support/backups.ts'
import { freePort, startServer, waitForReady, type Running } from '../../../support/process.ts'
import { TEST_JWT_SECRET } from '../../../support/build.ts'

// Two server starts, an instance, a retry after the heartbeat lapses: more than the default two minutes on a busy machine.
t.setTimeout(300_000)
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

/** Every file under `dir`, relative, sorted. */
function filesUnder (dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]).sort()
}

docker.test('killing the process while the archive is written: the retried job leaves exactly one whole archive and no partial file', { timeout: 300_000 }, async (t) => {
  const databaseUrl = await createTestDatabase(t)
  t.teardown(() => cleanupInstances(databaseUrl))
  const dataDir = mkdtempSync(join(tmpdir(), 'erp-backup-crash-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const backupDir = join(dataDir, 'backups')
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, SEED_DEMO: 'false',
    JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1',
    ...Object.fromEntries(Object.entries(dockerInstanceEnv(t, { BACKUP_IMAGE: await backupTestImage() })).map(([key, value]) => [key, String(value)]))
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
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, json: await response.json() as Record<string, any> }
  }

  const first = await start()
  const signup = await api('/api/signup', { company: 'Crash Co', subdomain: uniqueSubdomain('bcrash'), name: 'Ada', email: `ada-${port}@example.com`, password: 'correct horse battery staple' })
  const token = signup.json.token as string
  const subdomain = uniqueSubdomain('bc')
  const id = (await api('/api/instances/create', { name: 'Crash', subdomain, erp_version: '17.0', backend: 'docker' }, token)).json.instance.id as number
  for (let state = ''; state !== 'running';) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    state = (await api(`/api/instances/${id}/status`, undefined, token)).json.state
  }
  // A filestore big enough that writing the archive takes a while.
  await inFilestore(subdomain, 'head -c 31457280 /dev/urandom > /data/big && echo small > /data/small')
  const posted = await api(`/api/instances/${id}/backup`, {}, token)
  t.equal(posted.status, 202, JSON.stringify(posted.json))
  const backupId = posted.json.backup.id as number

  const deadline = Date.now() + 60_000
  let seen: string[] = []
  while (Date.now() < deadline) {
    seen = (() => { try { return filesUnder(backupDir) } catch { return [] } })()
    if (seen.some((file) => file.includes('.partial-'))) break
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  first.child.kill('SIGKILL')
  await first.exited
  t.ok(seen.some((file) => file.endsWith(`backup-${backupId}.tar`) === false && file.includes(`backup-${backupId}.tar.partial-`)), 'killed while a partial archive was being written')
  const [before] = await query<{ state: string }>(databaseUrl, 'SELECT state FROM backups WHERE id = $1', [backupId])
  t.equal(before?.state, 'running')

  await start()
  const until = Date.now() + 120_000
  let backup: Record<string, any> = {}
  while (Date.now() < until) {
    backup = (await api(`/api/instances/${id}/backups/${backupId}`, undefined, token)).json.backup
    if (backup.state === 'completed' || backup.state === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(backup.state, 'completed', backup.error ?? '')
  const [job] = await query<{ state: string, retry_count: number }>(databaseUrl, "SELECT state, retry_count FROM pgboss.job WHERE name = 'instance-backups'")
  t.match(job, { state: 'completed' })
  t.ok(job!.retry_count >= 1, 'it completed on a retry')
  const tenantId = signup.json.user.tenant_id as string
  t.same(filesUnder(backupDir), [`${tenantId}/${id}/backup-${backupId}.tar`], 'exactly one archive; no partial file, no scratch left')
  t.ok(backup.size > 31_457_280, `the whole archive: ${backup.size} bytes`)
})
