import t from 'tap'
import * as oauth from 'oauth4webapi'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { authorizationUrl, createBrowser, followOn, hiddenField, insecure, location, loginAtPortal, registerAgent, startFlowServers } from './flow-helpers.ts'

t.test('discovery, registration, login handoff, consent, token, refresh and revoke with oauth4webapi', async (t) => {
  const servers = await startFlowServers(t)
  const { authUrl } = servers
  const agent = await registerAgent(authUrl, 'Flow <agent>')
  t.equal(agent.as.issuer, authUrl)
  t.equal(agent.as.authorization_response_iss_parameter_supported, true)
  t.notOk('client_secret' in agent.client)

  const browser = createBrowser()
  const authorization = await authorizationUrl(agent, authUrl)
  const authorize = await browser.request(authorization.url)
  t.equal(authorize.status, 303)
  t.equal(authorize.headers.get('x-frame-options'), 'DENY')
  t.match(authorize.headers.get('content-security-policy'), /frame-ancestors 'none'/)
  const loginUrl = new URL(location(authorize, authUrl))
  t.equal(loginUrl.origin + loginUrl.pathname, `${servers.portalUrl}/login`, 'sent to the configured portal login page')

  const handoffUrl = await loginAtPortal(browser, servers, loginUrl.href)
  t.ok(handoffUrl.startsWith(`${authUrl}/oauth/handoff?`), 'the portal hands back to the auth server')

  const handoff = await browser.request(handoffUrl)
  t.equal(handoff.status, 303, 'handoff answers 303')
  t.equal(handoff.headers.get('x-frame-options'), 'DENY')
  const resumeUrl = location(handoff, authUrl)
  t.match(resumeUrl, `${authUrl}/oauth/authorize/`)
  const { response: toConsent, url: lastAuthServerUrl } = await followOn(browser, resumeUrl, authUrl)
  t.equal(toConsent.status, 200, 'ends on the consent page')
  t.match(lastAuthServerUrl, `${authUrl}/oauth/consent?oauth_transaction=`)
  t.equal(toConsent.headers.get('x-frame-options'), 'DENY')
  t.match(toConsent.headers.get('content-security-policy'), /frame-ancestors 'none'/)
  const page = await toConsent.text()
  t.match(page, 'Flow &lt;agent&gt;', 'client name, escaped')
  t.notMatch(page, 'Flow <agent>')
  t.match(page, '127.0.0.1:7777', 'redirect host')
  t.match(page, servers.person.email)
  t.match(page, servers.personName)
  t.match(page, />Allow</)
  t.match(page, />Deny</)
  t.match(page, '<p class="brand">ERP Portal</p>', 'the product name (PRODUCT_NAME, default from MAIL_FROM)')

  const consentUid = new URL(lastAuthServerUrl).searchParams.get('oauth_transaction') as string
  const allowed = await browser.submit(`${authUrl}/oauth/consent`, { oauth_transaction: consentUid, csrf: hiddenField(page, 'csrf'), decision: 'allow' })
  t.equal(allowed.status, 303)
  const { response: toClient } = await followOn(browser, location(allowed, authUrl), authUrl)
  t.equal(toClient.status, 303)
  const callback = new URL(location(toClient, authUrl))
  t.equal(callback.origin + callback.pathname, agent.redirectUri)
  t.equal(callback.searchParams.get('state'), authorization.state)
  t.equal(callback.searchParams.get('iss'), authUrl, 'RFC 9207 iss')
  t.ok(callback.searchParams.get('code'))

  const params = oauth.validateAuthResponse(agent.as, agent.client, callback, authorization.state)
  const tokens = await oauth.processAuthorizationCodeResponse(agent.as, agent.client,
    await oauth.authorizationCodeGrantRequest(agent.as, agent.client, oauth.None(), params, agent.redirectUri, authorization.verifier, insecure))
  t.equal(tokens.token_type.toLowerCase(), 'bearer')
  t.equal(tokens.scope, 'mcp')
  t.ok(tokens.refresh_token)

  const jwks = createRemoteJWKSet(new URL(agent.as.jwks_uri as string))
  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: authUrl, audience: `${authUrl}/api/mcp`, typ: 'at+jwt' })
  t.equal(protectedHeader.typ, 'at+jwt')
  t.equal(payload.sub, servers.person.user.id)
  t.equal(payload.email, servers.person.email)

  const { rows: activity } = await servers.pool.query("SELECT title, actor_kind, actor_id, tenant_id FROM activities WHERE type = 'oauth.grant_created'")
  t.same(activity, [{ title: `${servers.personName} connected Flow <agent>`, actor_kind: 'user', actor_id: servers.person.user.id, tenant_id: servers.person.user.tenant_id }])

  const refreshed = await oauth.processRefreshTokenResponse(agent.as, agent.client,
    await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), tokens.refresh_token as string, insecure))
  t.ok(refreshed.access_token)
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated')

  await oauth.processRevocationResponse(await oauth.revocationRequest(agent.as, agent.client, oauth.None(), refreshed.refresh_token as string, insecure))
  const after = await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), refreshed.refresh_token as string, insecure)
  t.equal(after.status, 400, 'a revoked refresh token no longer works')
  t.match(await after.json(), { error: 'invalid_grant' })
})
