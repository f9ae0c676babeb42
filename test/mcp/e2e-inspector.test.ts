/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector, a devDependency)
 * run as a person runs it from a shell, against the portal's one origin:
 *
 *   npx @modelcontextprotocol/inspector --cli <BASE_URL>/api/mcp --transport http \
 *     --method tools/list --header "Authorization: Bearer <token>"
 *
 * The token comes from the real OAuth flow (test/support/oauth-agent.ts connectAgent).
 * Without a token the Inspector signs the person in itself (its loopback callback);
 * the test plays the person in the cookie browser. The Inspector's bin runs under this
 * Node with a temporary HOME (it keeps a catalog and OAuth state under ~/.mcp-inspector),
 * secrets in memory, and a bounded run time.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { allowInBrowser, waitForOutput } from '../support/mcp-oauth-provider.ts'
import { connectAgent } from '../support/oauth-agent.ts'
import { freePort, ROOT } from '../support/process.ts'
import { startSingleOrigin } from '../support/single-origin.ts'

const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')

const so = await startSingleOrigin(t)
const { tokens } = await connectAgent(so.origin, so, 'Inspector CLI')
const home = await mkdtemp(join(tmpdir(), 'inspector-home-'))
t.teardown(() => rm(home, { recursive: true, force: true }))

interface Run { code: number | null, stdout: string, stderr: string }

/** `npx @modelcontextprotocol/inspector <args>`, without npx (the package is installed); killed after a minute at most. */
function inspector (args: string[], env: Record<string, string> = {}): { stderr: Readable, done: Promise<Run> } {
  const child = spawn(process.execPath, [INSPECTOR, ...args], {
    cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', MCP_INSPECTOR_SECRET_STORE: 'memory', ...env }, stdio: ['ignore', 'pipe', 'pipe']
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  t.teardown(() => { child.kill('SIGKILL') })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => { stdout += String(chunk) })
  child.stderr.on('data', (chunk) => { stderr += String(chunk) })
  const done = new Promise<Run>((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }) }))
  return { stderr: child.stderr, done }
}

function exitsCleanly (t: Test, run: Run): void {
  if (!t.equal(run.code, 0, 'exits with 0')) t.comment(run.stderr)
}

const cli = (token: string, ...method: string[]) => ['--cli', so.mcpResource, '--transport', 'http', ...method, '--header', `Authorization: Bearer ${token}`]

t.test('--method tools/list prints every tool', async (t) => {
  const run = await inspector(cli(tokens.access_token, '--method', 'tools/list')).done
  exitsCleanly(t, run)
  const { tools } = JSON.parse(run.stdout) as { tools: Array<{ name: string, annotations?: Record<string, boolean> }> }
  t.equal(tools.length, 23, '23 tools')
  for (const name of ['whoami', 'list_instances', 'create_ticket', 'list_users']) t.ok(tools.some((tool) => tool.name === name), name)
  t.match(tools.find((tool) => tool.name === 'whoami'), { annotations: { readOnlyHint: true } })
})

t.test('--method tools/call --tool-name whoami answers the person who connected it', async (t) => {
  const run = await inspector(cli(tokens.access_token, '--method', 'tools/call', '--tool-name', 'whoami')).done
  exitsCleanly(t, run)
  const result = JSON.parse(run.stdout) as { isError?: boolean, structuredContent: Record<string, any> }
  t.notOk(result.isError)
  t.match(result.structuredContent, { user: { id: so.person.user.id, email: so.person.email, role: 'admin' }, agent: { client_name: 'Inspector CLI' } })
})

t.test('a token that is not ours fails the run instead of answering', async (t) => {
  const run = await inspector([...cli('not-a-token', '--method', 'tools/list'), '--stored-auth-only']).done
  t.equal(run.code, 3, 'exit code 3 (auth required)')
  t.match(run.stderr, /auth_required/, 'says a sign-in is needed')
  t.match(run.stderr, /TOKEN_INVALID/, 'with the server\'s reason')
  t.notMatch(run.stdout, /"whoami"/, 'no tool list')
})

t.test('without a token, the Inspector signs the person in itself on its loopback callback', async (t) => {
  const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`
  // A person runs this in a terminal (a TTY); MCP_AUTO_OPEN_ENABLED=true is what lets it sign in without one, BROWSER=true opens nothing.
  const running = inspector(['--cli', so.mcpResource, '--transport', 'http', '--method', 'tools/list', '--callback-url', callbackUrl],
    { MCP_AUTO_OPEN_ENABLED: 'true', BROWSER: 'true' })
  const authorizationUrl = (await waitForOutput(running.stderr, /Please navigate to: (\S+)/))[1]!
  t.match(authorizationUrl, `${so.origin}/oauth/authorize?`)
  const callback = await allowInBrowser(so, authorizationUrl)
  t.equal(callback.origin + callback.pathname, callbackUrl, 'Allow sends the browser to the Inspector\'s callback')
  const landed = await fetch(callback, { signal: AbortSignal.timeout(30_000) })
  await landed.arrayBuffer()
  t.equal(landed.status, 200)

  const run = await running.done
  exitsCleanly(t, run)
  t.equal((JSON.parse(run.stdout) as { tools: unknown[] }).tools.length, 23, 'then it lists the tools')
})
