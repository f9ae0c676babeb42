import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type Provider from 'oidc-provider'
import { loadConfig, type AppConfig } from '../../config/env.ts'
import { createFindAccount } from '../../auth-server/account.ts'
import { createSigningKeyStore, type SigningKeys } from '../../auth-server/keys.ts'
import { createProvider } from '../../auth-server/provider.ts'
import { createTestDatabase } from '../support/database.ts'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

interface Teardown { teardown: (fn: () => unknown) => void }

export const BASE_URL = 'https://portal.example.test'
export const MCP = `${BASE_URL}/api/mcp`
/** Makes the library build endpoint URLs from the public origin, as the portal's proxy does. */
export const PROXY_HEADERS = { 'x-forwarded-host': 'portal.example.test', 'x-forwarded-proto': 'https' }

export interface TestAuthServer {
  url: string
  pool: pg.Pool
  provider: Provider
  keys: SigningKeys
  config: AppConfig
}

export async function tempDir (t: Teardown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'auth-server-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** A real provider over real HTTP on 127.0.0.1, on a database of its own unless `env.DATABASE_URL` names one. */
export async function startTestAuthServer (t: Teardown, env: Record<string, unknown> = {}): Promise<TestAuthServer> {
  const databaseUrl = typeof env.DATABASE_URL === 'string' ? env.DATABASE_URL : await createTestDatabase(t)
  const dataDir = await tempDir(t)
  const config = loadConfig({ DATABASE_URL: databaseUrl, BASE_URL, DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), ...env })
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 })
  pool.on('error', () => {}) // idle clients cut off when the test database is dropped
  const keys = await createSigningKeyStore({ pool, jwtSecret: config.JWT_SECRET as string }).load()
  const provider = createProvider({ config, pool, keys, findAccount: createFindAccount(pool) })
  const server = createServer(provider.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await pool.end()
  })
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, pool, provider, keys, config }
}

export async function register (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number, body: Record<string, any>, headers: Headers }> {
  const response = await fetch(`${url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() as Record<string, any>, headers: response.headers }
}
