/**
 * The standalone auth server: `node auth-server/server.ts`. Listens on
 * AUTH_HOST (default 127.0.0.1):AUTH_PORT (the portal's public origin proxies /oauth/**, the
 * metadata and the registration route to it, with X-Forwarded-Host/-Proto).
 * Requires DATABASE_URL: it shares the portal's PostgreSQL, never an embedded one.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import type { AppConfig } from '../config/env.ts'
import { formatProblem, type ConfigProblem } from '../config/problems.ts'
import { STANDALONE_AUTH_PORT } from '../config/schema.ts'
import { loadConfigOrExit } from '../config/startup.ts'
import { createFindAccount } from './account.ts'
import { cleanupExpired } from './adapter.ts'
import { takenPortProblem } from '../lib/ports.ts'
import { resolveJwtSecret } from '../lib/secrets.ts'
import { withHealthRoutes } from './health.ts'
import { createAuthMetrics, withMetricsRoute } from './metrics.ts'
import { createSigningKeyStore } from './keys.ts'
import { createProvider } from './provider.ts'
import { IN_FLIGHT_GRACE_MS } from '../lib/shutdown-budget.ts'

export interface AuthServer {
  url: string
  /** First phase of a graceful shutdown: /health/ready answers 503 and responses carry `Connection: close`. */
  drain: () => void
  close: () => Promise<void>
}

export interface StartOptions {
  config: AppConfig
  host?: string
  /** 0 picks a free port (tests, and the portal's child when AUTH_PORT is unset). Default AUTH_PORT, else 3001. */
  port?: number
  cleanupIntervalMs?: number
  log?: (message: string) => void
}

export async function startAuthServer (options: StartOptions): Promise<AuthServer> {
  const { config } = options
  const log = options.log ?? ((message: string) => console.error(message))
  if (config.DATABASE_URL === undefined) throw new Error('The auth server requires DATABASE_URL (the portal\'s PostgreSQL)')
  const jwtSecret = await resolveJwtSecret(config)
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DB_POOL_MAX })
  // An idle connection the server closed (restart, failover) is replaced on next use; it must not end the process.
  pool.on('error', (error) => log(`auth-server database connection lost: ${error.message}`))
  const keys = await createSigningKeyStore({ pool, jwtSecret, dataDir: config.DATA_DIR }).load()
  const provider = createProvider({ config: { ...config, JWT_SECRET: jwtSecret }, pool, keys, findAccount: createFindAccount(pool) })
  provider.on('server_error', (_ctx: unknown, error: Error) => log(`auth-server error: ${error.stack ?? error.message}`))

  const cleanup = setInterval(() => {
    cleanupExpired(pool).catch((error: Error) => log(`auth-server cleanup failed: ${error.message}`))
  }, options.cleanupIntervalMs ?? 10 * 60 * 1000)
  cleanup.unref()

  let closing = false
  const metrics = createAuthMetrics(provider)
  const handler = withMetricsRoute(metrics, config.METRICS_TOKEN, withHealthRoutes(pool, provider.callback(), () => closing))
  const server = createServer((request, response) => {
    // Draining: each kept-alive socket is closed right after its current response. Decided when
    // the head is written, not when the request arrived: a request already under way when the
    // drain began gets it too.
    const writeHead = response.writeHead
    response.writeHead = function (this: typeof response, ...args: Parameters<typeof writeHead>) {
      if (closing && !this.headersSent) this.setHeader('connection', 'close')
      return writeHead.apply(this, args)
    } as typeof writeHead
    handler(request, response)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? config.AUTH_PORT ?? STANDALONE_AUTH_PORT, options.host ?? config.AUTH_HOST, resolve)
  })
  const { address, port } = server.address() as AddressInfo
  return {
    url: `http://${address}:${port}`,
    drain () { closing = true },
    async close () {
      closing = true
      clearInterval(cleanup)
      await closeServer(server)
      await pool.end()
    }
  }
}

function closeServer (server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => error === undefined ? resolve() : reject(error))
    server.closeIdleConnections()
  })
}

/** The auth server shares the portal's PostgreSQL: it never starts an embedded one. */
export function authServerProblems (config: AppConfig): ConfigProblem[] {
  if (config.DATABASE_URL !== undefined) return []
  return [{
    variable: 'DATABASE_URL',
    value: undefined,
    reason: 'the auth server needs the portal\'s PostgreSQL',
    allowed: 'a postgres:// or postgresql:// connection URL',
    example: 'postgres://user:password@db.example.com:5432/erp_portal'
  }]
}

if (import.meta.main) {
  const config = loadConfigOrExit({ checks: [authServerProblems] })
  // Started by the portal (an IPC channel) with AUTH_PORT unset: any free port, which it reports below.
  const port = config.AUTH_PORT ?? (process.send === undefined ? STANDALONE_AUTH_PORT : 0)
  const authServer = await startAuthServer({ config, port }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error
    console.error(formatProblem(await takenPortProblem('AUTH_PORT', port)))
    process.exit(1)
  })
  console.error(`auth server listening on ${authServer.url} (issuer ${config.BASE_URL})`)
  let closing = false
  // As the portal's (server.ts): readiness false first, SHUTDOWN_DELAY_SECONDS of serving on SIGTERM, then in-flight requests finish.
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_DELAY_SECONDS * 1000 + IN_FLIGHT_GRACE_MS)
    force.unref()
    authServer.drain()
    if (signal === 'SIGTERM') await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_SECONDS * 1000))
    authServer.close().then(() => process.exit(0), (error: Error) => {
      console.error(error)
      process.exit(1)
    })
  }
  // Started by the portal, a signal to the whole group (Ctrl-C, systemd's stop) is the portal's to handle:
  // it drains first and then stops this child by closing the IPC channel.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { if (!process.connected) void shutdown(signal) })
  // Started by the portal (`npm start`): when the portal dies, even by SIGKILL, its
  // IPC channel closes, and the auth server goes with it instead of holding the port.
  process.on('disconnect', () => { void shutdown('disconnect') })
  process.send?.({ listening: authServer.url })
}
