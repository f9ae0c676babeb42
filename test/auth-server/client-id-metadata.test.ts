import t from 'tap'
import * as oauth from 'oauth4webapi'
import { cacheSeconds } from '../../auth-server/client-id-metadata.ts'
import { createBrowser } from '../support/cookie-browser.ts'
import { json, startHttpsServer } from '../support/https-server.ts'
import { authorizationUrl, decide, exchangeCode, insecure, reachConsent, type AgentClient } from '../support/oauth-agent.ts'
import { startFlowServers } from './flow-helpers.ts'

const REDIRECT_URI = 'http://127.0.0.1:7777/cb'

t.test('cache lifetime from the response headers, clamped', async (t) => {
  t.equal(cacheSeconds('max-age=600'), 600)
  t.equal(cacheSeconds('public, max-age=5'), 30, 'at least 30 s')
  t.equal(cacheSeconds('max-age=99999999'), 86400, 'at most a day')
  t.equal(cacheSeconds('no-store, max-age=600'), 0, 'no-store: not kept')
  t.equal(cacheSeconds('no-cache'), 0)
  t.equal(cacheSeconds('max-age=0'), 0)
  t.equal(cacheSeconds(undefined), 300, 'no header: five minutes')
  t.equal(cacheSeconds(undefined, new Date(Date.now() + 3_600_000).toUTCString()), 3599)
})

t.test('a client identified by the URL of its metadata document', async (t) => {
  const documents = await startHttpsServer(t)
  const servers = await startFlowServers(t, { CLIENT_METADATA_ALLOWED_HOSTS: 'localhost' }, { outboundCa: documents.ca })
  const { authUrl } = servers
  const clientId = `${documents.origin}/agent/client.json`
  let fetches = 0
  documents.routes.set('/agent/client.json', (req, res) => {
    fetches++
    json({ client_id: clientId, client_name: 'Metadata Agent', redirect_uris: [REDIRECT_URI], client_uri: 'https://agent.example' },
      { 'cache-control': 'max-age=300' })(req, res)
  })

  const issuer = new URL(authUrl)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
  t.equal(as.client_id_metadata_document_supported, true, 'advertised in the metadata')

  t.test('full authorization-code flow, no registration', async (t) => {
    const agent: AgentClient = { as, client: { client_id: clientId, token_endpoint_auth_method: 'none' }, redirectUri: REDIRECT_URI }
    const authorization = await authorizationUrl(agent, authUrl)
    const browser = createBrowser()
    const consent = await reachConsent(browser, servers, authorization.url)
    t.match(consent.html, 'Metadata Agent', 'the document\'s client_name')
    t.match(consent.html, `localhost:${documents.port}`, 'and the host it was read from')
    const callback = await decide(browser, consent, 'allow')
    const tokens = await exchangeCode(agent, callback, authorization)
    t.equal(tokens.scope, 'mcp')
    const [, payload] = tokens.access_token.split('.')
    t.equal(JSON.parse(Buffer.from(payload as string, 'base64url').toString()).client_id, clientId)
    const refreshed = await oauth.processRefreshTokenResponse(as, agent.client,
      await oauth.refreshTokenGrantRequest(as, agent.client, oauth.None(), tokens.refresh_token as string, insecure))
    t.ok(refreshed.access_token, 'refresh works')
    t.equal(fetches, 1, 'fetched once, then kept for its max-age')
    const { rows } = await servers.pool.query("SELECT payload->>'clientId' AS client_id FROM oidc_payloads WHERE kind = 'Grant'")
    t.same(rows, [{ client_id: clientId }])
    t.equal((await servers.pool.query("SELECT 1 FROM oidc_payloads WHERE kind = 'Client'")).rowCount, 0, 'nothing registered')
  })

  const tooLargeName = 'x'.repeat(6000)
  const refusals: Array<{ name: string, path: string, body?: (url: string) => unknown, url?: string, reason: RegExp }> = [
    { name: 'client_id differs from its URL', path: '/mismatch.json', body: () => ({ client_id: `${documents.origin}/other.json`, redirect_uris: [REDIRECT_URI] }), reason: /client_id .* must equal its URL/ },
    { name: 'too large', path: '/large.json', body: (url) => ({ client_id: url, client_name: tooLargeName, redirect_uris: [REDIRECT_URI] }), reason: /larger than 5120 bytes/ },
    { name: 'a redirect URI registration would refuse', path: '/plain-http.json', body: (url) => ({ client_id: url, redirect_uris: ['http://agent.example/cb'] }), reason: /redirect_uris must use https/ },
    { name: 'a client secret', path: '/secret.json', body: (url) => ({ client_id: url, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }), reason: /must be none/ },
    { name: 'on a private address (not allow-listed)', path: '/agent/client.json', url: `https://127.0.0.1:${documents.port}/agent/client.json`, reason: /127\.0\.0\.1 is at 127\.0\.0\.1, a loopback address/ },
    { name: 'not found', path: '/missing.json', reason: /answered HTTP 404/ }
  ]
  for (const refusal of refusals) {
    const url = refusal.url ?? `${documents.origin}${refusal.path}`
    if (refusal.body !== undefined) documents.routes.set(refusal.path, json(refusal.body(url)))
    t.test(`refused with invalid_client: ${refusal.name}`, async (t) => {
      const token = await fetch(`${authUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: url, code: 'x', code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT_URI })
      })
      t.equal(token.status, 400)
      t.match(await token.json(), { error: 'invalid_client', error_description: refusal.reason })

      const authorize = await fetch(`${authUrl}/oauth/authorize?${new URLSearchParams({
        client_id: url, response_type: 'code', scope: 'mcp', redirect_uri: REDIRECT_URI, state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256'
      })}`, { redirect: 'manual' })
      t.equal(authorize.status, 400, 'an error page')
      t.equal(authorize.headers.get('location'), null, 'never redirected')
      const page = await authorize.text()
      t.match(page, refusal.reason)
      t.match(page, /Error code: <code data-error-code>invalid_client<\/code>/, 'the page carries the error code people search for')
    })
  }

  t.test('refused with invalid_client: too slow (5 s)', async (t) => {
    documents.routes.set('/slow.json', (_req, res) => { setTimeout(() => res.end('{}'), 7000).unref() })
    const started = Date.now()
    const token = await fetch(`${authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: `${documents.origin}/slow.json`, refresh_token: 'x' })
    })
    t.equal(token.status, 400)
    t.match(await token.json(), { error: 'invalid_client', error_description: /no complete answer within 5 s/ })
    t.ok(Date.now() - started < 6500, 'gave up after about 5 s')
  })
})

t.test('a slow document on an authorization request: one bounded fetch (CLIENT_METADATA_TIMEOUT_SECONDS), then invalid_client on the error page', async (t) => {
  const documents = await startHttpsServer(t)
  const servers = await startFlowServers(t, { CLIENT_METADATA_ALLOWED_HOSTS: 'localhost', CLIENT_METADATA_TIMEOUT_SECONDS: 1 }, { outboundCa: documents.ca })
  let fetches = 0
  documents.routes.set('/slow.json', (_req, res) => { fetches++; setTimeout(() => res.end('{}'), 4000).unref() })
  const started = Date.now()
  const authorize = await fetch(`${servers.authUrl}/oauth/authorize?${new URLSearchParams({
    client_id: `${documents.origin}/slow.json`, response_type: 'code', scope: 'mcp', redirect_uri: REDIRECT_URI, state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256'
  })}`, { redirect: 'manual' })
  const page = await authorize.text()
  const elapsed = Date.now() - started
  t.equal(authorize.status, 400)
  t.match(page, /slow\.json: no complete answer within 1 s/)
  t.match(page, /Error code: <code data-error-code>invalid_client<\/code>/)
  t.equal(fetches, 1, 'fetched once: the error page\'s second look at the client reuses the refusal')
  t.ok(elapsed < 2500, `answered after one bounded wait (${elapsed} ms), not two`)
})
