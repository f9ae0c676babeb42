/**
 * For crash tests: the real server (server.ts) as a child process on its own port and test
 * database, with the Docker backend, that a test kills with SIGKILL and starts again.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { TEST_JWT_SECRET } from './build.ts'
import { createTestDatabase } from './database.ts'
import { cleanupInstances, dockerInstanceEnv, uniqueSubdomain } from './instances.ts'
import { freePort, startServer, waitForReady, type Running } from './process.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface CrashableServer {
  databaseUrl: string
  dataDir: string
  port: number
  /** Starts a server process and waits until it is ready; every process started is killed at teardown. */
  start: () => Promise<Running>
  /** A GET, or a POST of `body` as JSON; with `token` as the bearer token. */
  api: (path: string, body?: unknown, token?: string) => Promise<{ status: number, json: Record<string, any> }>
  /** SQL on the service database, outside the server. */
  query: <Row>(text: string, values?: unknown[]) => Promise<Row[]>
  /** Signs a new company up; answers its admin's token and the tenant id. */
  signUp: (prefix: string) => Promise<{ token: string, tenantId: string }>
}

export async function crashableServer (t: Teardown, options: { prefix: string, env?: Record<string, unknown> }): Promise<CrashableServer> {
  const databaseUrl = await createTestDatabase(t)
  t.teardown(() => cleanupInstances(databaseUrl))
  const dataDir = mkdtempSync(join(tmpdir(), `${options.prefix}-`))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, SEED_DEMO: 'false',
    JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1',
    ...Object.fromEntries(Object.entries(dockerInstanceEnv(t, options.env)).map(([key, value]) => [key, String(value)]))
  }
  const servers: Running[] = []
  t.teardown(() => { for (const server of servers) server.child.kill('SIGKILL') })

  async function api (path: string, body?: unknown, token?: string) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, json: await response.json() as Record<string, any> }
  }

  return {
    databaseUrl,
    dataDir,
    port,
    api,
    async start () {
      const server = startServer(env)
      servers.push(server)
      await waitForReady(`http://127.0.0.1:${port}/health/ready`, server)
      return server
    },
    async query<Row> (text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        return (await client.query(text, values)).rows as Row[]
      } finally {
        await client.end()
      }
    },
    async signUp (prefix) {
      const signup = await api('/api/signup', { company: 'Crash Co', subdomain: uniqueSubdomain(prefix), name: 'Ada', email: `ada-${port}@example.com`, password: 'correct horse battery staple' })
      return { token: signup.json.token as string, tenantId: signup.json.user.tenant_id as string }
    }
  }
}
