import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { createFindAccount } from '../../auth-server/account.ts'
import { createSigningKeyStore } from '../../auth-server/keys.ts'
import { createProvider } from '../../auth-server/provider.ts'
import { loadConfig } from '../../config/env.ts'
import { signup, type SignedUp } from '../support/accounts.ts'
import { build, TEST_JWT_SECRET } from '../support/build.ts'
import { createTestDatabase } from '../support/database.ts'
import { tempDir } from './helpers.ts'

// The client side of the flow lives in test/support (shared with the single-origin and MCP tests).
export { createBrowser, hiddenField, location, type Browser } from '../support/cookie-browser.ts'
export { authorizationUrl, followOn, insecure, loginAtPortal, registerAgent, signInUpToHandoff, type AgentClient, type Authorization } from '../support/oauth-agent.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export interface FlowServers {
  /** The auth server's own origin, which is also BASE_URL (the issuer) and the portal's BASE_URL. */
  authUrl: string
  portalUrl: string
  pool: pg.Pool
  person: SignedUp
  personName: string
}

/**
 * The portal app and the auth server on real ports, one database, one JWT_SECRET.
 * Two origins, no proxy in the path: the portal's BASE_URL is the auth server's origin,
 * so its login page hands back to it. The production topology (one origin, the portal
 * proxying to the auth server) is test/support/single-origin.ts.
 */
export async function startFlowServers (t: Teardown, authEnv: Record<string, unknown> = {}, options: { outboundCa?: string } = {}): Promise<FlowServers> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => { res.statusCode = 503; res.end() }
  const server = createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const authUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const databaseUrl = await createTestDatabase(t)
  const { app } = await build(t, { databaseUrl, env: { BASE_URL: authUrl, LOGIN_LIMIT_PER_IP: 1000 } })
  const portalUrl = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1')
  const person = await signup(app)

  const dataDir = await tempDir(t)
  const config = loadConfig({
    DATABASE_URL: databaseUrl, BASE_URL: authUrl, DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET,
    PORTAL_LOGIN_URL: `${portalUrl}/login`, PORTAL_API_URL: portalUrl, ...authEnv
  })
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  pool.on('error', () => {})
  t.teardown(() => pool.end())
  const keys = await createSigningKeyStore({ pool, jwtSecret: TEST_JWT_SECRET }).load()
  const provider = createProvider({ config, pool, keys, findAccount: createFindAccount(pool), ...options })
  handler = provider.callback()
  const name = await pool.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [person.user.id])
  return { authUrl, portalUrl, pool, person, personName: name.rows[0]?.name ?? '' }
}
