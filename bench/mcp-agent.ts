/**
 * The MCP scenario's agent: a client registered on our auth server (the bench
 * child bench/oauth-ours-server.ts), one code minted through its provider for
 * the bench company's admin and redeemed at its token endpoint: a real access
 * token, which the app verifies against that server's JWKS (AUTH_PORT).
 */
import { register } from '../test/auth-server/helpers.ts'
import type { RunningServer } from './child-process.ts'
import { REDIRECT_URI, type MintedCode, type MintRequest } from './oauth-codes.ts'
import { exchangeBody } from './oauth-load.ts'

export async function agentAccessToken (auth: RunningServer, accountId: string): Promise<string> {
  const { status, body } = await register(auth.url, { redirect_uris: [REDIRECT_URI], client_name: 'Bench MCP agent' })
  if (status !== 201 || typeof body.client_id !== 'string') throw new Error(`client registration answered ${status}: ${JSON.stringify(body)}`)
  const endpoint = { url: auth.url, path: '/oauth/token', clientId: body.client_id }
  const [minted] = await auth.call<MintedCode[]>('mint', { count: 1, clientId: endpoint.clientId, accountId, lifetimeSeconds: 600 } satisfies MintRequest)
  const response = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: exchangeBody(endpoint, minted!)
  })
  const tokens = await response.json() as { access_token?: string }
  if (response.status !== 200 || typeof tokens.access_token !== 'string') throw new Error(`token exchange answered ${response.status}: ${JSON.stringify(tokens)}`)
  return tokens.access_token
}

/** What an MCP client sends with each Streamable HTTP POST. */
export function mcpHeaders (accessToken: string): Record<string, string> {
  return {
    authorization: `Bearer ${accessToken}`,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2025-11-25'
  }
}

export function toolCall (name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
}
