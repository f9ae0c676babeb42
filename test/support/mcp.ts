import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { BASE_URL, MCP, startTestAuthServer, type TestAuthServer } from '../auth-server/helpers.ts'
import { issueCode, pkcePair, redeem, registerClient } from '../auth-server/token-support.ts'
import { numbered, SAVE_GRANT_ACCESS } from '../../auth-server/grant-store.ts'
import type { AgentAccess } from '../../lib/agent-access.ts'
import type { SignedUp } from './accounts.ts'
import { build } from './build.ts'
import { createTestDatabase } from './database.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

export { BASE_URL, MCP }

/** An agent connected to a person: what the consent step and the token exchange leave the client with. */
export interface ConnectedAgent {
  clientId: string
  clientName: string
  grantId: string
  accessToken: string
  refreshToken: string
}

export interface McpFixture {
  app: FastifyInstance
  auth: TestAuthServer
  databaseUrl: string
  /** Registers a client, records the person's consent (a Grant for `mcp`) and redeems a code with PKCE. */
  connectAgent: (person: SignedUp, clientName?: string, access?: AgentAccess) => Promise<ConnectedAgent>
}

/**
 * The portal app (app.inject) and the real authorization server (real HTTP on
 * AUTH_PORT) on one database, with BASE_URL = https://portal.example.test as
 * both sides see it. /api/mcp fetches the auth server's real JWKS.
 */
export async function startMcpFixture (t: Teardown & Parameters<typeof build>[0], env: Record<string, unknown> = {}, { logger }: Pick<NonNullable<Parameters<typeof build>[1]>, 'logger'> = {}): Promise<McpFixture> {
  const databaseUrl = await createTestDatabase(t)
  const auth = await startTestAuthServer(t, { DATABASE_URL: databaseUrl })
  const { app } = await build(t, { databaseUrl, logger, env: { BASE_URL, AUTH_PORT: Number(new URL(auth.url).port), ...env } })
  // The SDK clients' HTTP pool can hold a socket that never sent a request; closing the app would wait for
  // the server's headers timeout (about 70 s) to drop it. When a file is over, no request is owed an answer.
  t.teardown(() => { app.server.closeAllConnections() })

  async function connectAgent (person: SignedUp, clientName = 'Test agent', access: AgentAccess = { level: 'administer', instanceIds: null }): Promise<ConnectedAgent> {
    const clientId = await registerClient(auth, clientName)
    const { verifier, challenge } = pkcePair()
    const { code, grantId } = await issueCode(auth, clientId, person.user.id, challenge)
    // What the consent page would store; tests of the tools act with the person's full rights unless they say otherwise.
    const instanceIds = access.instanceIds === null ? null : JSON.stringify(access.instanceIds)
    await app.sql({
      text: numbered(SAVE_GRANT_ACCESS),
      values: [grantId, person.user.tenant_id, person.user.id, access.level, instanceIds]
    })
    const tokens = await redeem(auth, clientId, code, verifier)
    if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`)
    return { clientId, clientName, grantId, accessToken: tokens.body.access_token, refreshToken: tokens.body.refresh_token }
  }

  return { app, auth, databaseUrl, connectAgent }
}

/** Headers of a Streamable HTTP POST. */
export function mcpHeaders (token?: string, protocolVersion = '2025-11-25'): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': protocolVersion,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
  }
}

let nextId = 1

/** One JSON-RPC request to /api/mcp through app.inject. */
export function rpc (app: FastifyInstance, token: string | undefined, method: string, params: Record<string, unknown> = {}) {
  return app.inject({ method: 'POST', url: '/api/mcp', headers: mcpHeaders(token), payload: { jsonrpc: '2.0', id: nextId++, method, params } })
}

/** `tools/call`, answering the JSON-RPC body. */
export async function callTool (app: FastifyInstance, token: string, name: string, args: Record<string, unknown> = {}) {
  const response = await rpc(app, token, 'tools/call', { name, arguments: args })
  if (response.statusCode !== 200) throw new Error(`tools/call ${name}: HTTP ${response.statusCode} ${response.body}`)
  return response.json() as { result?: { isError?: boolean, structuredContent: Record<string, any>, content: Array<{ type: string, text: string }> }, error?: { code: number, message: string } }
}

/**
 * The settings of a portal whose instances run on the fake Kubernetes API server: a kubeconfig
 * written for it (removed at teardown), the Kubernetes backend only, no reconciler mid-test.
 */
export function kubeBackendEnv (t: Teardown, kubeconfigText: string): { KUBECONFIG: string, INSTANCE_BACKENDS: 'kubernetes', RECONCILE_SECONDS: number } {
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kubeconfigText)
  return { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', RECONCILE_SECONDS: 3600 }
}
