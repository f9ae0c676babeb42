import { access, constants } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { authorizationUrl, exchangeCode, registerAgent } from '../support/oauth-agent.ts'
import { startSingleOrigin, type SingleOrigin } from '../support/single-origin.ts'

// The OAuth flow once in a real browser (Debian's Chromium), through the single public origin.
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

/** A missing Chromium fails the run (CI installs it with .ci/browser.sh); this test never skips. */
async function launchChromium (t: Test): Promise<Browser> {
  try {
    await access(CHROMIUM, constants.X_OK)
  } catch {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium; .ci/browser.sh does it in CI)`)
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  return browser
}

/** The agent's loopback redirect URI: a tiny server that records each callback's query. */
async function startCallbackServer (t: Test) {
  const received: URLSearchParams[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/callback') {
      response.writeHead(404).end()
      return
    }
    received.push(url.searchParams)
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Agent</title><p>Back in the agent.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  return {
    redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    /** Each callback's query, in order. */
    received
  }
}

/** A page in a fresh profile (no cookies), and the errors its console reports (CSP violations among them). */
async function newPage (t: Test, browser: Browser): Promise<{ page: Page, consoleErrors: string[] }> {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    // Chromium asks every origin for /favicon.ico; neither the portal nor the agent has one.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) consoleErrors.push(message.text())
  })
  return { page, consoleErrors }
}

async function signIn (page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** Resolves with the consent page's own response (the last hop of the redirects after Sign in). */
function consentResponse (page: Page, origin: string) {
  return page.waitForResponse((response) => response.url().startsWith(`${origin}/oauth/consent?`) && response.request().method() === 'GET')
}

type Callbacks = Awaited<ReturnType<typeof startCallbackServer>>

/** Clicks Allow or Deny and waits until the browser lands on the agent's redirect URI: the query it brought. */
async function decideAndReturn (page: Page, button: 'Allow' | 'Deny', callbacks: Callbacks, consoleErrors: string[]): Promise<URLSearchParams> {
  const before = callbacks.received.length
  await page.getByRole('button', { name: button }).click()
  try {
    await page.waitForURL((url) => url.href.startsWith(callbacks.redirectUri), { timeout: 15_000 })
  } catch (error) {
    throw new Error(`the browser did not reach the agent's redirect URI after ${button} (at ${page.url()}): ${consoleErrors.join(' | ') || (error as Error).message}`)
  }
  const query = callbacks.received[before]
  if (query === undefined || callbacks.received.length !== before + 1) throw new Error(`expected one callback, got ${callbacks.received.length - before}`)
  return query
}

async function expectConsentPage (t: Test, page: Page, so: SingleOrigin, clientName: string): Promise<void> {
  t.match(page.url(), `${so.origin}/oauth/consent?oauth_transaction=`)
  t.equal(await page.getByRole('heading', { level: 1 }).innerText(), `Allow ${clientName} to access your account?`)
  const details = await page.locator('dl').innerText()
  t.match(details, clientName, 'the client name')
  t.match(details, `${so.personName} (${so.person.email})`, 'the person signed in')
}

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
