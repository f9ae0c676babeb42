import t from 'tap'
import * as oauth from 'oauth4webapi'
import { createBrowser } from '../support/cookie-browser.ts'
import { decide, exchangeCode, reachConsent, type AgentClient, type Authorization } from '../support/oauth-agent.ts'
import { registerAgent, startFlowServers } from './flow-helpers.ts'

/** The authorize URL of oauth-agent.ts with a chosen `scope` (omitted when undefined). */
async function authorizationWithScope (agent: AgentClient, issuerUrl: string, scope: string | undefined): Promise<Authorization> {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(agent.as.authorization_endpoint as string)
  url.search = new URLSearchParams({
    client_id: agent.client.client_id, redirect_uri: agent.redirectUri, response_type: 'code', state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: `${issuerUrl}/api/mcp`,
    ...(scope === undefined ? {} : { scope })
  }).toString()
  return { url: url.href, verifier, state }
}

t.test('an MCP authorization server: scope mcp only, never an ID token', async (t) => {
  const servers = await startFlowServers(t)
  const agent = await registerAgent(servers.authUrl, 'Scope agent')

  const discovery = await (await fetch(`${servers.authUrl}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>
  t.same(discovery.scopes_supported, ['mcp'])
  for (const key of ['id_token_signing_alg_values_supported', 'claims_supported', 'claim_types_supported', 'subject_types_supported', 'userinfo_endpoint']) {
    t.notOk(key in discovery, `no ${key} in the metadata`)
  }

  for (const scope of ['openid mcp', 'mcp openid offline_access profile', 'mcp unknown', undefined]) {
    t.test(`scope ${JSON.stringify(scope)} is granted as mcp, without an ID token`, async (t) => {
      const authorization = await authorizationWithScope(agent, servers.authUrl, scope)
      const browser = createBrowser()
      const callback = await decide(browser, await reachConsent(browser, servers, authorization.url), 'allow')
      const tokens = await exchangeCode(agent, callback, authorization)
      t.equal(tokens.scope, 'mcp')
      t.notOk('id_token' in tokens, 'no id_token')
      t.ok(tokens.refresh_token)
      const refreshed = await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), tokens.refresh_token as string,
        { [oauth.allowInsecureRequests]: true, additionalParameters: { scope: 'openid mcp' } })
      t.equal(refreshed.status, 400, 'openid cannot be added on refresh')
      t.match(await refreshed.json(), { error: 'invalid_scope' })
    })
  }

  for (const scope of ['openid', 'openid profile email', 'unknown', 'MCP']) {
    t.test(`scope ${JSON.stringify(scope)}: nothing grantable, invalid_scope back to the client`, async (t) => {
      const authorization = await authorizationWithScope(agent, servers.authUrl, scope)
      const response = await fetch(authorization.url, { redirect: 'manual' })
      t.equal(response.status, 303)
      const callback = new URL(response.headers.get('location') as string)
      t.equal(callback.origin + callback.pathname, agent.redirectUri)
      t.equal(callback.searchParams.get('error'), 'invalid_scope')
      t.match(callback.searchParams.get('error_description'), /grants "mcp" only/)
      t.equal(callback.searchParams.get('state'), authorization.state)
      t.equal(callback.searchParams.get('iss'), servers.authUrl)
    })
  }
})
