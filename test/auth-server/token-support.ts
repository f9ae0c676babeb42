import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { MCP, register, type TestAuthServer } from './helpers.ts'

export const REDIRECT = 'http://127.0.0.1:7777/cb'

export async function createUser (server: TestAuthServer): Promise<{ id: string, email: string, name: string }> {
  const tenantId = randomUUID()
  const id = randomUUID()
  const email = `${id.slice(0, 8)}@example.com`
  await server.pool.query("INSERT INTO tenants (id, name, subdomain, created_at, updated_at) VALUES ($1, 'T', $2, now(), now())", [tenantId, `t${id.slice(0, 8)}`])
  await server.pool.query("INSERT INTO users (id, tenant_id, email, name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, 'Ada Lovelace', 'x', now(), now())", [id, tenantId, email])
  return { id, email, name: 'Ada Lovelace' }
}

export async function registerClient (server: TestAuthServer, clientName = 'Test agent'): Promise<string> {
  const { status, body } = await register(server.url, { redirect_uris: [REDIRECT], client_name: clientName })
  if (status !== 201) throw new Error(`registration failed: ${JSON.stringify(body)}`)
  return body.client_id as string
}

export function pkcePair (): { verifier: string, challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** What the consent step will do: a Grant for `mcp` on the MCP resource, then a code (no interaction UI). */
export async function issueCode (server: TestAuthServer, clientId: string, accountId: string, challenge: string | undefined): Promise<{ code: string, grantId: string }> {
  const { provider } = server
  const grant = new provider.Grant({ accountId, clientId })
  grant.addResourceScope(MCP, 'mcp')
  const grantId = await grant.save() as string
  const client = await provider.Client.find(clientId)
  const code = new provider.AuthorizationCode({
    accountId, grantId, client, redirectUri: REDIRECT, scope: 'mcp', resource: MCP,
    ...(challenge === undefined ? {} : { codeChallenge: challenge, codeChallengeMethod: 'S256' })
  })
  return { code: await code.save() as string, grantId }
}

export async function tokenRequest (server: TestAuthServer, params: Record<string, string>): Promise<{ status: number, body: Record<string, any> }> {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params)
  })
  return { status: response.status, body: await response.json() as Record<string, any> }
}

export function redeem (server: TestAuthServer, clientId: string, code: string, verifier: string, extra: Record<string, string> = {}): ReturnType<typeof tokenRequest> {
  return tokenRequest(server, { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, ...extra })
}

export function refresh (server: TestAuthServer, clientId: string, refreshToken: string): ReturnType<typeof tokenRequest> {
  return tokenRequest(server, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken })
}

export async function revoke (server: TestAuthServer, clientId: string, token: string): Promise<number> {
  return (await revokeRequest(server, clientId, token)).status
}

/** The revocation answer: status and body (empty on success, an OAuth error object otherwise). */
export async function revokeRequest (server: TestAuthServer, clientId: string, token: string): Promise<{ status: number, body: Record<string, any> | string }> {
  const response = await fetch(`${server.url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, token })
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? text : JSON.parse(text) as Record<string, any> }
}

export async function grantExists (server: TestAuthServer, grantId: string): Promise<boolean> {
  const { rowCount } = await server.pool.query("SELECT 1 FROM oidc_payloads WHERE kind = 'Grant' AND id = $1", [grantId])
  return rowCount === 1
}
