import t from 'tap'
import * as oauth from 'oauth4webapi'
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose'
import { createBrowser, hiddenField, location } from '../support/cookie-browser.ts'
import { authorizationUrl, connectAgent, decide, exchangeCode, followOn, insecure, loginAtPortal, reachConsent, registerAgent } from '../support/oauth-agent.ts'
import { startSingleOrigin } from '../support/single-origin.ts'

// Everything below talks to one origin: the portal, which forwards the OAuth routes to the auth server.
t.test('through the one public origin', async (t) => {
  const so = await startSingleOrigin(t)
  const { origin } = so

  t.test('discovery, registration, sign-in, consent, tokens, refresh and revoke with oauth4webapi', async (t) => {
    const resource = await (await fetch(`${origin}/.well-known/oauth-protected-resource/api/mcp`)).json() as { authorization_servers: string[] }
    t.same(resource.authorization_servers, [origin], 'the MCP resource names this origin as its authorization server')

    const agent = await registerAgent(origin, 'Single-origin agent')
    t.equal(agent.as.issuer, origin)
    const endpoints = Object.entries(agent.as).filter(([key]) => key.endsWith('_endpoint') || key === 'jwks_uri')
    t.ok(endpoints.length >= 4, `endpoints: ${endpoints.map(([key]) => key).join(', ')}`)
    for (const [key, url] of endpoints) t.equal(new URL(url as string).origin, origin, `${key} is on the public origin`)
    t.match(agent.as, {
      authorization_endpoint: `${origin}/oauth/authorize`, token_endpoint: `${origin}/oauth/token`, revocation_endpoint: `${origin}/oauth/revoke`,
      registration_endpoint: `${origin}/api/oauth/register`, jwks_uri: `${origin}/.well-known/jwks.json`
    })
    const metadataText = await (await fetch(`${origin}/.well-known/openid-configuration`)).text()
    t.notMatch(metadataText, new URL(so.authServerUrl).host, 'the auth server\'s own address never shows')
    t.notOk('client_secret' in agent.client, 'a public client')

    const browser = createBrowser()
    const authorization = await authorizationUrl(agent, origin)
    const authorize = await browser.request(authorization.url)
    t.equal(authorize.status, 303)
    const loginUrl = new URL(location(authorize, origin))
    t.equal(loginUrl.origin + loginUrl.pathname, `${origin}/login`, 'the default login page, on the same origin')
    const uid = loginUrl.searchParams.get('oauth_transaction') as string
    t.ok(uid)
    const setCookies = authorize.headers.getSetCookie()
    t.ok(setCookies.some((line) => line.startsWith(`oauth_tx_${uid}=`) && /path=\/oauth;/i.test(line)), 'binding cookie, path /oauth, forwarded')
    t.ok(setCookies.some((line) => line.startsWith('_interaction=')), 'the library\'s interaction cookie, forwarded alongside')

    const handoffUrl = await loginAtPortal(browser, so, loginUrl.href)
    const handoff = new URL(handoffUrl)
    t.equal(handoff.origin + handoff.pathname, `${origin}/oauth/handoff`, 'the portal hands back on the same origin')
    t.equal(handoff.searchParams.get('oauth_transaction'), uid)
    t.ok(handoff.searchParams.get('handoff_code'))

    const { response: consentResponse, url: consentUrl } = await followOn(browser, handoffUrl, origin)
    t.equal(consentResponse.status, 200)
    t.match(consentUrl, `${origin}/oauth/consent?oauth_transaction=`)
    const consentUid = new URL(consentUrl).searchParams.get('oauth_transaction') as string
    t.equal(consentResponse.headers.get('x-frame-options'), 'DENY')
    const html = await consentResponse.text()
    for (const shown of ['Single-origin agent', so.person.email, so.personName]) t.match(html, shown)

    const callback = await decide(browser, { url: consentUrl, uid: consentUid, csrf: hiddenField(html, 'csrf'), html, headers: consentResponse.headers }, 'allow')
    t.equal(callback.origin + callback.pathname, agent.redirectUri)
    t.equal(callback.searchParams.get('state'), authorization.state)
    t.equal(callback.searchParams.get('iss'), origin, 'RFC 9207 iss is the one origin')
    t.ok(callback.searchParams.get('code'))

    const tokens = await exchangeCode(agent, callback, authorization)
    t.equal(tokens.scope, 'mcp')
    const jwks = createRemoteJWKSet(new URL(`${origin}/.well-known/jwks.json`))
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: origin, audience: so.mcpResource, typ: 'at+jwt' })
    t.equal(protectedHeader.typ, 'at+jwt')
    t.equal(payload.aud, so.mcpResource)
    t.equal(payload.sub, so.person.user.id, 'the person who signed in')
    t.equal(payload.client_id, agent.client.client_id)
    const grants = await so.pool.query("SELECT payload->>'accountId' AS account FROM oidc_payloads WHERE kind = 'Grant' AND payload->>'clientId' = $1", [agent.client.client_id])
    t.same(grants.rows, [{ account: so.person.user.id }], 'one grant, for the person')

    const refreshed = await oauth.processRefreshTokenResponse(agent.as, agent.client,
      await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), tokens.refresh_token as string, insecure))
    t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated')
    const again = await jwtVerify(refreshed.access_token, jwks, { issuer: origin, audience: so.mcpResource, typ: 'at+jwt' })
    t.equal(again.payload.sub, so.person.user.id)

    await oauth.processRevocationResponse(await oauth.revocationRequest(agent.as, agent.client, oauth.None(), refreshed.refresh_token as string, insecure))
    const afterRevoke = await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), refreshed.refresh_token as string, insecure)
    t.equal(afterRevoke.status, 400, 'a revoked refresh token no longer works')
    t.match(await afterRevoke.json(), { error: 'invalid_grant' })
  })

  t.test('Deny answers access_denied to the client, through the same origin', async (t) => {
    const agent = await registerAgent(origin, 'Denied agent')
    const authorization = await authorizationUrl(agent, origin)
    const browser = createBrowser()
    const consent = await reachConsent(browser, so, authorization.url)
    t.ok(consent.url.startsWith(`${origin}/oauth/consent?`))
    const callback = await decide(browser, consent, 'deny')
    t.equal(callback.origin + callback.pathname, agent.redirectUri)
    t.equal(callback.searchParams.get('error'), 'access_denied')
    t.equal(callback.searchParams.get('state'), authorization.state)
    t.equal(callback.searchParams.get('iss'), origin)
    t.equal(callback.searchParams.get('code'), null)
    const { rowCount } = await so.pool.query("SELECT 1 FROM oidc_payloads WHERE kind = 'Grant' AND payload->>'clientId' = $1", [agent.client.client_id])
    t.equal(rowCount, 0, 'no grant for the denied agent')
  })

  t.test('the binding cookie set through the proxy is what lets the handoff through', async (t) => {
    const agent = await registerAgent(origin)
    const browser = createBrowser()
    const authorize = await browser.request((await authorizationUrl(agent, origin)).url)
    const loginUrl = location(authorize, origin)
    const uid = new URL(loginUrl).searchParams.get('oauth_transaction') as string
    const kept = browser.cookies(origin).filter((cookie) => cookie.name.startsWith(`oauth_tx_${uid}`))
    t.same(kept.map(({ name, path }) => ({ name, path })), [{ name: `oauth_tx_${uid}`, path: '/oauth' }, { name: `oauth_tx_${uid}.sig`, path: '/oauth' }])
    const handoffUrl = await loginAtPortal(browser, so, loginUrl)
    browser.forget(origin, /^oauth_tx_/)
    const refused = await browser.request(handoffUrl)
    t.equal(refused.status, 400)
    t.match(await refused.text(), /started in another browser/)
  })

  t.test('revoking an access token through the origin puts its jti on the denylist', async (t) => {
    const { agent, tokens } = await connectAgent(origin, so)
    await oauth.processRevocationResponse(await oauth.revocationRequest(agent.as, agent.client, oauth.None(), tokens.access_token, insecure))
    const { rows } = await so.pool.query('SELECT jti FROM oauth_revoked_tokens WHERE jti = $1', [decodeJwt(tokens.access_token).jti])
    t.equal(rows.length, 1)
  })

  t.test('the auth server logged no error along the way', async (t) => {
    t.same(so.authServerLog, [])
  })
})
