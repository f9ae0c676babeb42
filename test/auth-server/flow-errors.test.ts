import t from 'tap'
import type { Test } from 'tap'
import { authorizationUrl, createBrowser, followOn, hiddenField, location, loginAtPortal, registerAgent, signInUpToHandoff, startFlowServers, type Browser, type FlowServers } from './flow-helpers.ts'

/** Signs in and follows the handoff to the consent page: its transaction and CSRF field. */
async function reachConsent (browser: Browser, servers: FlowServers, authorizeUrl: string): Promise<{ uid: string, csrf: string }> {
  const handoffUrl = await signInUpToHandoff(browser, servers, authorizeUrl)
  const { response, url } = await followOn(browser, handoffUrl, servers.authUrl)
  if (response.status !== 200) throw new Error(`consent page answered ${response.status}`)
  return { uid: new URL(url).searchParams.get('oauth_transaction') as string, csrf: hiddenField(await response.text(), 'csrf') }
}

async function expectErrorPage (t: Test, response: Response, status: number, text: RegExp): Promise<void> {
  t.equal(response.status, status)
  t.equal(response.headers.get('location'), null, 'no redirect')
  t.match(response.headers.get('content-type'), /text\/html/)
  t.equal(response.headers.get('x-frame-options'), 'DENY')
  const html = await response.text()
  t.match(html, text)
  t.notMatch(html, /at .*\.(js|ts):\d+/, 'no stack trace')
}

t.test('with a working portal', async (t) => {
  const servers = await startFlowServers(t)
  const agent = await registerAgent(servers.authUrl)

  t.test('Deny sends access_denied back to the client, with state and iss', async (t) => {
    const browser = createBrowser()
    const authorization = await authorizationUrl(agent, servers.authUrl)
    const { uid, csrf } = await reachConsent(browser, servers, authorization.url)
    const denied = await browser.submit(`${servers.authUrl}/oauth/consent`, { oauth_transaction: uid, csrf, decision: 'deny' })
    t.equal(denied.status, 303)
    const { response } = await followOn(browser, location(denied, servers.authUrl), servers.authUrl)
    const callback = new URL(location(response, servers.authUrl))
    t.equal(callback.origin + callback.pathname, agent.redirectUri)
    t.equal(callback.searchParams.get('error'), 'access_denied')
    t.equal(callback.searchParams.get('state'), authorization.state)
    t.equal(callback.searchParams.get('iss'), servers.authUrl)
    t.equal(callback.searchParams.get('code'), null)
    const { rowCount } = await servers.pool.query("SELECT 1 FROM activities WHERE type = 'oauth.grant_created'")
    t.equal(rowCount, 0, 'no connection recorded')
  })

  t.test('consent POST without or with a wrong CSRF token is 403 and grants nothing', async (t) => {
    const browser = createBrowser()
    const { uid, csrf } = await reachConsent(browser, servers, (await authorizationUrl(agent, servers.authUrl)).url)
    await expectErrorPage(t, await browser.submit(`${servers.authUrl}/oauth/consent`, { oauth_transaction: uid, decision: 'allow' }), 403, /expired or was not opened on this site/)
    await expectErrorPage(t, await browser.submit(`${servers.authUrl}/oauth/consent`, { oauth_transaction: uid, csrf: `${csrf.slice(1)}x`, decision: 'allow' }), 403, /expired or was not opened/)
    const { rowCount } = await servers.pool.query("SELECT 1 FROM oidc_payloads WHERE kind = 'Grant'")
    t.equal(rowCount, 0)
  })

  t.test('replaying the handoff URL ends on a 400 page, not a loop', async (t) => {
    const browser = createBrowser()
    const handoffUrl = await signInUpToHandoff(browser, servers, (await authorizationUrl(agent, servers.authUrl)).url)
    const first = await browser.request(handoffUrl)
    t.equal(first.status, 303)
    await expectErrorPage(t, await browser.request(handoffUrl), 400, /already used or has expired/)
  })

  t.test('a handoff or a resume in another browser ends on a clear page', async (t) => {
    const browser = createBrowser()
    const handoffUrl = await signInUpToHandoff(browser, servers, (await authorizationUrl(agent, servers.authUrl)).url)
    await expectErrorPage(t, await createBrowser().request(handoffUrl), 400, /started in another browser/)
    const handoff = await browser.request(handoffUrl)
    t.equal(handoff.status, 303, 'the code was not spent by the other browser')
    const resumeUrl = location(handoff, servers.authUrl)
    await expectErrorPage(t, await createBrowser().request(resumeUrl), 400, /has expired or is unknown/)
  })

  t.test('a code minted for another transaction is refused', async (t) => {
    const browser = createBrowser()
    const first = await browser.request((await authorizationUrl(agent, servers.authUrl)).url)
    const second = await browser.request((await authorizationUrl(agent, servers.authUrl)).url)
    const handoffUrl = new URL(await loginAtPortal(browser, servers, location(first, servers.authUrl)))
    handoffUrl.searchParams.set('oauth_transaction', new URL(location(second, servers.authUrl)).searchParams.get('oauth_transaction') as string)
    await expectErrorPage(t, await browser.request(handoffUrl.href), 400, /does not belong to this request/)
  })

  t.test('an unknown consent transaction is a clear 400 page', async (t) => {
    await expectErrorPage(t, await createBrowser().request(`${servers.authUrl}/oauth/consent?oauth_transaction=nope`), 400, /another browser, or has expired/)
  })
})

t.test('a wrong handoff secret is a 401 page', async (t) => {
  const servers = await startFlowServers(t, { HANDOFF_SECRET: 'not-the-portals-secret-'.padEnd(40, 'x') })
  const agent = await registerAgent(servers.authUrl)
  const browser = createBrowser()
  const handoffUrl = await signInUpToHandoff(browser, servers, (await authorizationUrl(agent, servers.authUrl)).url)
  await expectErrorPage(t, await browser.request(handoffUrl), 401, /misconfigured/)
})

t.test('a portal that does not answer is a 502 page', async (t) => {
  const servers = await startFlowServers(t, { PORTAL_API_URL: 'http://127.0.0.1:1' })
  const agent = await registerAgent(servers.authUrl)
  const browser = createBrowser()
  const handoffUrl = await signInUpToHandoff(browser, servers, (await authorizationUrl(agent, servers.authUrl)).url)
  await expectErrorPage(t, await browser.request(handoffUrl), 502, /did not answer/)
})
