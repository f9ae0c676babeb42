import t from 'tap'
import type { Test } from 'tap'
import type { Page } from 'playwright-core'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { authorizationUrl, exchangeCode, registerAgent } from '../support/oauth-agent.ts'
import { consentResponse, decideAndReturn, launchChromium, newPage, signIn, startCallbackServer } from '../support/browser.ts'
import { startSingleOrigin, type SingleOrigin } from '../support/single-origin.ts'

async function expectConsentPage (t: Test, page: Page, so: SingleOrigin, clientName: string): Promise<void> {
  t.match(page.url(), `${so.origin}/oauth/consent?oauth_transaction=`)
  t.equal(await page.getByRole('heading', { level: 1 }).innerText(), `Allow ${clientName} to access your account?`)
  const details = await page.locator('dl').innerText()
  t.match(details, clientName, 'the client name')
  t.match(details, `${so.personName} (${so.person.email})`, 'the person signed in')
}

// The OAuth flow once in a real browser (Debian's Chromium), through the single public origin.
t.test('the OAuth flow in Chromium, through the one public origin', async (t) => {
  const so = await startSingleOrigin(t)
  const callbacks = await startCallbackServer(t)
  const browser = await launchChromium(t) // last started, first closed (tap teardowns run LIFO)
  const agent = await registerAgent(so.origin, 'Browser agent', callbacks.redirectUri)

  t.test('sign in, Allow, and the agent gets a code it can redeem', async (t) => {
    const { page, consoleErrors } = await newPage(t, browser)
    const authorization = await authorizationUrl(agent, so.origin)
    await page.goto(authorization.url)
    t.equal(page.url().split('?')[0], `${so.origin}/login`, 'sent to the login page on the same origin')

    const consent = consentResponse(page, so.origin)
    await signIn(page, so.person.email, so.person.password)
    const consentAnswer = await consent
    t.equal(consentAnswer.status(), 200)
    t.equal(consentAnswer.headers()['x-frame-options'], 'DENY', 'the consent page cannot be framed')
    await expectConsentPage(t, page, so, 'Browser agent')

    const query = await decideAndReturn(page, 'Allow', callbacks, consoleErrors)
    t.equal(query.get('state'), authorization.state)
    t.equal(query.get('iss'), so.origin)
    t.ok(query.get('code'))
    t.match(await page.locator('body').innerText(), 'Back in the agent', 'the browser landed on the agent\'s page')

    const tokens = await exchangeCode(agent, new URL(`${callbacks.redirectUri}?${query}`), authorization)
    const jwks = createRemoteJWKSet(new URL(`${so.origin}/.well-known/jwks.json`))
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: so.origin, audience: so.mcpResource, typ: 'at+jwt' })
    t.equal(payload.sub, so.person.user.id)
    t.ok(tokens.refresh_token)
    t.same(consoleErrors, [], 'no CSP violation or script error in the browser')
  })

  t.test('a wrong password stays on the login page with a clear error; then Deny answers access_denied', async (t) => {
    const { page, consoleErrors } = await newPage(t, browser)
    const authorization = await authorizationUrl(agent, so.origin)
    await page.goto(authorization.url)
    const callbacksBefore = callbacks.received.length

    await signIn(page, so.person.email, 'not the password at all')
    t.equal(await page.getByRole('alert').innerText(), 'Invalid e-mail or password')
    t.equal(page.url().split('?')[0], `${so.origin}/login`, 'still on the login page')
    t.equal(await page.getByLabel('Email').inputValue(), so.person.email, 'the e-mail address is kept')
    t.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not')
    t.equal(callbacks.received.length, callbacksBefore, 'nothing reached the agent')

    const consent = consentResponse(page, so.origin)
    await signIn(page, so.person.email, so.person.password)
    await consent
    await expectConsentPage(t, page, so, 'Browser agent')

    const query = await decideAndReturn(page, 'Deny', callbacks, consoleErrors)
    t.equal(query.get('error'), 'access_denied')
    t.equal(query.get('state'), authorization.state)
    t.equal(query.get('iss'), so.origin)
    t.equal(query.get('code'), null)
    t.same(consoleErrors, [], 'no CSP violation or script error in the browser')
  })

  t.test('the auth server logged no error', async (t) => {
    t.same(so.authServerLog, [])
  })
})
