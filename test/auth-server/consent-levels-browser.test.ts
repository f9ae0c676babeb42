/**
 * Least privilege chosen in a real browser (Debian's Chromium): on the consent
 * page the person keeps Read only and picks one instance; the agent (the MCP
 * SDK's Client) then reads that instance, does not see the other, and cannot
 * stop it.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { chromium } from 'playwright-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { authorizationUrl, exchangeCode, registerAgent } from '../support/oauth-agent.ts'
import { startSingleOrigin } from '../support/single-origin.ts'
import { recordInstance } from '../support/instance-rows.ts'

const so = await startSingleOrigin(t)
const shop = await recordInstance(so.app, so.person.user.tenant_id, { name: 'Shop' })
const books = await recordInstance(so.app, so.person.user.tenant_id, { name: 'Books' })

const received: URLSearchParams[] = []
const callback = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1')
  // Chromium also asks this origin for /favicon.ico: only the callback counts.
  if (url.pathname !== '/callback') return void response.writeHead(404).end()
  received.push(url.searchParams)
  response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Agent</title><p>Back in the agent.</p>')
})
await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
t.teardown(() => new Promise((resolve) => { callback.closeAllConnections(); callback.close(resolve) }))
const redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
t.teardown(() => browser.close())

t.test('Read only on one instance, chosen on the consent page, is what the agent gets', async (t) => {
  const agent = await registerAgent(so.origin, 'Least agent', redirectUri)
  const authorization = await authorizationUrl(agent, so.origin)
  const page = await (await browser.newContext()).newPage()
  await page.goto(authorization.url)
  await page.getByLabel('Email').fill(so.person.email)
  await page.getByLabel('Password').fill(so.person.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === '/oauth/consent')

  const text = await page.locator('main').innerText()
  t.match(text, /unverified/i, 'a self-declared client name is called unverified')
  t.ok(await page.getByLabel(/^Read only/).isChecked(), 'Read only is the default')
  t.match(await page.getByLabel(/^Read only/).locator('xpath=..').innerText(), /cannot change anything/, 'the page says what the level allows')
  t.match(text, /Administer[\s\S]*deleting instances/, 'and what the others would allow')

  await page.getByLabel('Only these instances:').check()
  await page.getByLabel(/^Shop/).check()
  await page.getByRole('button', { name: 'Allow' }).click()
  await page.waitForURL((url) => url.href.startsWith(redirectUri))
  t.equal(received.length, 1, 'one callback reached the agent')
  const query = received[0]!
  const tokens = await exchangeCode(agent, new URL(`${redirectUri}?${query}`), authorization)

  const client = new Client({ name: 'least', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(so.mcpResource), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
  t.teardown(() => client.close())
  type Answer = { isError?: boolean, structuredContent?: any }
  const call = async (name: string, args: Record<string, unknown> = {}) => await client.callTool({ name, arguments: args }) as Answer

  const names = (await client.listTools()).tools.map((tool) => tool.name)
  t.ok(names.includes('get_instance') && !names.includes('stop_instance'), 'tools/list shows reads only')
  t.same((await call('list_instances')).structuredContent.instances.map((i: { id: number }) => i.id), [shop], 'sees only the chosen instance')
  t.equal((await call('get_instance', { instance_id: shop })).structuredContent.instance.name, 'Shop', 'reads it')
  t.equal((await call('get_instance', { instance_id: books })).structuredContent.error.code, 'INSTANCE_NOT_FOUND', 'the other is not found')
  const stop = await call('stop_instance', { instance_id: shop })
  t.equal(stop.isError, true)
  t.equal(stop.structuredContent.error.code, 'AGENT_LEVEL_TOO_LOW', 'cannot stop it')
  const { rows } = await so.pool.query<{ state: string }>('SELECT state FROM instances WHERE id = $1', [shop])
  t.equal(rows[0]?.state, 'running', 'still running')
  const grants = (await so.app.inject({ method: 'GET', url: '/api/oauth/grants', headers: { authorization: `Bearer ${so.person.token}` } })).json().grants
  t.match(grants, [{ client_name: 'Least agent', level: 'read', instance_ids: [shop] }], 'the portal shows the choice')
})
