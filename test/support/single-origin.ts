/**
 * The production topology on loopback: one public origin.
 *
 *   client / browser ──> portal (build(), listening on 127.0.0.1:P, BASE_URL = http://127.0.0.1:P)
 *                          │ proxies /oauth/**, the OAuth metadata, the JWKS and /api/oauth/register
 *                          v
 *                        auth server (auth-server/server.ts startAuthServer, 127.0.0.1:A,
 *                          BASE_URL and PORTAL_API_URL = the portal's origin, default PORTAL_LOGIN_URL)
 *
 * Both share one fresh test database and JWT_SECRET (so the handoff secret both
 * derive matches). Clients only ever use `origin`; the auth server's own address
 * is returned for tests that check it never leaks.
 *
 *   const so = await startSingleOrigin(t)
 *   const { tokens } = await connectAgent(so.origin, so)   // test/support/oauth-agent.ts
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { MikroORM } from '@mikro-orm/postgresql'
import pg from 'pg'
import { startAuthServer } from '../../auth-server/server.ts'
import { loadConfig, type AppConfig } from '../../config/env.ts'
import { signup, type SignedUp } from './accounts.ts'
import { build, TEST_JWT_SECRET } from './build.ts'
import { createTestDatabase } from './database.ts'
import { freePort } from './process.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface SingleOriginOptions {
  /** Portal configuration on top of the test defaults (build's `env`); BASE_URL and AUTH_PORT are set here. */
  portalEnv?: Record<string, unknown>
  /** Auth-server configuration on top of DATABASE_URL, BASE_URL, PORTAL_API_URL, DATA_DIR, JWT_SECRET (e.g. HANDOFF_SECRET). */
  authEnv?: Record<string, unknown>
}

export interface SingleOrigin {
  /** `http://127.0.0.1:P`: the portal, the issuer, the MCP resource's origin; the only address clients use. */
  origin: string
  /** `${origin}/api/mcp`: the resource and the access tokens' audience. */
  mcpResource: string
  app: FastifyInstance
  orm: MikroORM
  /** The portal's resolved configuration. */
  config: AppConfig
  databaseUrl: string
  /** A pool on the shared database, for assertions. */
  pool: pg.Pool
  /** A signed-up company's admin (email, password, portal token, user row). */
  person: SignedUp
  personName: string
  /** The auth server's loopback address behind the proxy: clients never see it. */
  authServerUrl: string
  /** What the auth server logged (its errors); empty in a healthy run. */
  authServerLog: string[]
}

/** Port P is reserved before the portal is built (BASE_URL needs it); another process may take it meanwhile: retry. */
const ATTEMPTS = 5

export async function startSingleOrigin (t: Teardown, options: SingleOriginOptions = {}): Promise<SingleOrigin> {
  const databaseUrl = await createTestDatabase(t)
  const dataDir = await mkdtemp(join(tmpdir(), 'single-origin-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const authServerLog: string[] = []

  let servers: Servers | undefined
  for (let attempt = 1; servers === undefined; attempt++) {
    const scope = teardownScope()
    try {
      servers = await startServers(scope, { databaseUrl, dataDir, authServerLog, ...options })
      t.teardown(() => scope.close())
    } catch (error) {
      await scope.close()
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= ATTEMPTS) throw error
    }
  }

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  pool.on('error', () => {}) // idle clients cut off when the test database is dropped
  t.teardown(() => pool.end())
  const person = await signup(servers.app)
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [person.user.id])
  return { ...servers, mcpResource: `${servers.origin}/api/mcp`, databaseUrl, pool, person, personName: rows[0]?.name ?? '', authServerLog }
}

interface Servers { origin: string, app: FastifyInstance, orm: MikroORM, config: AppConfig, authServerUrl: string }

async function startServers (scope: Teardown, input: SingleOriginOptions & { databaseUrl: string, dataDir: string, authServerLog: string[] }): Promise<Servers> {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const authConfig = loadConfig({
    DATABASE_URL: input.databaseUrl, BASE_URL: origin, PORTAL_API_URL: origin, DATA_DIR: input.dataDir, JWT_SECRET: TEST_JWT_SECRET,
    ...input.authEnv
  })
  // Its own port is picked by the system (0): nothing else needs to know it before it listens.
  const authServer = await startAuthServer({ config: authConfig, port: 0, log: (message) => input.authServerLog.push(message) })
  scope.teardown(() => authServer.close())

  const { app, orm, config } = await build(scope, {
    databaseUrl: input.databaseUrl,
    // Every request comes from 127.0.0.1: the per-IP login limit would count all tests of a file as one person.
    env: { BASE_URL: origin, AUTH_PORT: Number(new URL(authServer.url).port), LOGIN_LIMIT_PER_IP: 1000, ...input.portalEnv }
  })
  await app.listen({ port, host: '127.0.0.1' })
  return { origin, app, orm, config, authServerUrl: authServer.url }
}

/** Teardowns of one start attempt: run at once when it fails, at the test's end when it succeeds (LIFO either way). */
function teardownScope () {
  const steps: Array<() => unknown> = []
  return {
    teardown (fn: () => unknown) { steps.push(fn) },
    async close () {
      let failure: unknown
      for (const step of steps.splice(0).reverse()) {
        try { await step() } catch (error) { failure ??= error }
      }
      if (failure !== undefined) throw failure
    }
  }
}
