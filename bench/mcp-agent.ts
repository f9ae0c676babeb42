/**
 * The MCP scenario's agent: a client registered on our auth server (the bench
 * child bench/oauth-ours-server.ts), one code minted through its provider for
 * the bench company's admin and redeemed at its token endpoint: a real access
 * token, which the app verifies against that server's JWKS (AUTH_PORT).
 */
import type { RunningServer } from './child-process.ts'
import type { MintedCode, MintRequest } from './oauth-codes.ts'
import { exchangeBody } from './oauth-load.ts'
import { registerClient } from './oauth-pair.ts'

export async function agentAccessToken (auth: RunningServer, accountId: string): Promise<string> {
  const endpoint = { url: auth.url, path: '/oauth/token', clientId: await registerClient(auth.url, 'Bench MCP agent') }
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

export function toolsList (): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
}
