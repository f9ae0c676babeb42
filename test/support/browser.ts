import { access, constants } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Pages in a real browser (Debian's Chromium): the browser, a fresh page, and the OAuth flow's steps (the agent's redirect URI, the login and consent pages). */
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

/** A missing Chromium fails the run (CI installs it with .ci/browser.sh); this test never skips. */
export async function launchChromium (t: Test): Promise<Browser> {
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
export async function startCallbackServer (t: Test) {
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
export async function newPage (t: Test, browser: Browser): Promise<{ page: Page, consoleErrors: string[] }> {
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

export async function signIn (page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** Resolves with the consent page's own response (the last hop of the redirects after Sign in). */
export function consentResponse (page: Page, origin: string) {
  return page.waitForResponse((response) => response.url().startsWith(`${origin}/oauth/consent?`) && response.request().method() === 'GET')
}

export type Callbacks = Awaited<ReturnType<typeof startCallbackServer>>

/** Clicks Allow or Deny and waits until the browser lands on the agent's redirect URI: the query it brought. */
export async function decideAndReturn (page: Page, button: 'Allow' | 'Deny', callbacks: Callbacks, consoleErrors: string[]): Promise<URLSearchParams> {
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
