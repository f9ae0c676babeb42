/**
 * mcp-remote (a devDependency) as Claude Desktop runs it for a stdio-only
 * client: `npx mcp-remote <BASE_URL>/api/mcp <callback port> --allow-http`, spoken to
 * over stdio by the SDK's Client + StdioClientTransport.
 *
 * mcp-remote registers itself, prints the authorization URL on stderr and tries to
 * open a browser; BROWSER=true makes that attempt succeed without opening anything
 * (its `open` dependency runs xdg-open, which runs $BROWSER). The test is the
 * person: it reads the URL, signs in, presses Allow, and lets the browser land on
 * mcp-remote's own callback server, which redeems the code itself.
 * Its token store goes to a temporary MCP_REMOTE_CONFIG_DIR; teardown stops the process.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { bearer } from '../support/accounts.ts'
import { allowInBrowser, waitForOutput } from '../support/mcp-oauth-provider.ts'
import { freePort, ROOT } from '../support/process.ts'
import { startSingleOrigin } from '../support/single-origin.ts'

const MCP_REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js')

const so = await startSingleOrigin(t)
const configDir = await mkdtemp(join(tmpdir(), 'mcp-remote-'))
t.teardown(() => rm(configDir, { recursive: true, force: true }))
const callbackPort = await freePort()

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [MCP_REMOTE, so.mcpResource, String(callbackPort), '--allow-http'],
  env: { PATH: process.env.PATH ?? '', HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true' },
  stderr: 'pipe'
})
const stderr = transport.stderr as Readable
let log = ''
stderr.on('data', (chunk) => { log += String(chunk) })
const client = new Client({ name: 'stdio-only desktop client', version: '1.0.0' })
t.teardown(() => client.close()) // closes stdin, then SIGTERM/SIGKILL: the process is gone after

t.test('mcp-remote prints the sign-in URL, receives the code on its callback and connects', async (t) => {
  const printed = waitForOutput(stderr, /Please authorize this client by visiting:\s+(\S+)/)
  const connecting = client.connect(transport)
  connecting.catch(() => {}) // awaited below; a failure before the URL shows up ends the output wait instead
  const authorizationUrl = new URL((await printed)[1]!)
  t.equal(authorizationUrl.origin + authorizationUrl.pathname, `${so.origin}/oauth/authorize`, 'the authorize endpoint of the one origin')
  t.match(Object.fromEntries(authorizationUrl.searchParams), { scope: 'mcp', resource: so.mcpResource, code_challenge_method: 'S256' })

  const callback = await allowInBrowser(so, authorizationUrl.href)
  t.equal(callback.origin + callback.pathname, `http://localhost:${callbackPort}/oauth/callback`, 'Allow sends the browser to mcp-remote\'s callback')
  t.ok(callback.searchParams.get('code'))
  const landed = await fetch(callback, { signal: AbortSignal.timeout(30_000) })
  t.equal(landed.status, 200, 'mcp-remote\'s callback page')
  await landed.arrayBuffer()

  await connecting
  if (!t.ok(client.getServerCapabilities()?.tools, 'connected: the server\'s tools capability came through')) t.comment(log)
  t.match(log, /Browser opened automatically/, 'the browser attempt ran harmlessly')
})

t.test('tools/list and whoami through the stdio client', async (t) => {
  const { tools } = await client.listTools()
  t.equal(tools.length, 23)
  t.ok(tools.some((tool) => tool.name === 'list_instances'))
  const whoami = await client.callTool({ name: 'whoami', arguments: {} }) as { isError?: boolean, structuredContent?: Record<string, any> }
  t.notOk(whoami.isError)
  t.match(whoami.structuredContent, { user: { id: so.person.user.id, email: so.person.email }, agent: { client_name: String } })

  const grants = (await so.app.inject({ method: 'GET', url: '/api/oauth/grants', headers: bearer(so.person.token) })).json().grants as Array<{ client_name: string }>
  t.same(grants.map((grant) => grant.client_name), [whoami.structuredContent?.agent.client_name], 'the portal lists mcp-remote as the connected agent')
})

t.test('the auth server logged no error', async (t) => {
  t.same(so.authServerLog, [])
})
