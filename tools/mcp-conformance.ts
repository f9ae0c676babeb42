/**
 * `npm run conformance:mcp`: the official MCP conformance suite
 * (@modelcontextprotocol/conformance, server mode) against our /api/mcp.
 *
 * 1. Starts `node server.ts` on a free port with a fresh embedded PostgreSQL in a
 *    temporary DATA_DIR (or, faster, a temporary database created on the server
 *    `--postgres-url` names, dropped afterwards), the demo admin seeded; or, with
 *    `--url`, uses a running deployment (`--email`/`--password` of a user there).
 * 2. Obtains a real agent access token through our own OAuth flow: dynamic
 *    registration, PKCE, the login page, consent, the token endpoint.
 * 3. Starts a loopback proxy that adds `Authorization: Bearer <token>` (the suite
 *    sends none) and passes everything else through as it is, Host and Origin
 *    included, so that the server judges them (the DNS-rebinding scenario).
 * 4. Runs the suite against the proxy, with the scenarios that do not apply to a
 *    server with tools only listed as expected failures
 *    (tools/mcp-conformance-baseline.yml), and exits with its status.
 *
 * Extra arguments after `--` go to the suite (`-- --scenario tools-list --verbose`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, request, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { freePort } from '../lib/ports.ts'
import { connectAgent } from './support/oauth-agent.ts'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const BASELINE = join(ROOT, 'tools/mcp-conformance-baseline.yml')

const { values: options, positionals: suiteArgs } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    email: { type: 'string', default: 'admin@demo.example.com' },
    password: { type: 'string' },
    'postgres-url': { type: 'string' }
  }
})

const cleanups: Array<() => Promise<unknown>> = []
let status = 1
try {
  const { baseUrl, password } = options.url === undefined
    ? await startServer(options['postgres-url'] === undefined ? undefined : await temporaryDatabase(options['postgres-url']))
    : { baseUrl: options.url.replace(/\/+$/, ''), password: options.password }
  if (password === undefined) throw new Error('--password is required with --url (the login of --email on that deployment)')

  const { tokens } = await connectAgent(baseUrl, { person: { email: options.email, password } }, 'MCP conformance suite')
  console.error(`conformance: agent access token obtained from ${baseUrl} (expires in ${tokens.expires_in ?? '?'} s)`)

  const proxy = await startTokenProxy(baseUrl, tokens.access_token)
  cleanups.push(() => new Promise((resolve) => { proxy.closeAllConnections(); proxy.close(resolve) }))
  const mcpUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/mcp`
  const results = await mkdtemp(join(tmpdir(), 'mcp-conformance-'))
  console.error(`conformance: running the suite against ${mcpUrl} (proxy to ${baseUrl}/api/mcp); results in ${results}`)
  status = await run(process.execPath, [SUITE, 'server', '--url', mcpUrl, '--expected-failures', BASELINE, '-o', results, ...suiteArgs], { stdio: 'inherit' })
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
}
process.exit(status)

/** A new empty database on the server of `adminUrl`, dropped at the end. */
async function temporaryDatabase (adminUrl: string): Promise<string> {
  const name = `mcp_conformance_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.href
}

/** `node server.ts` as `npm start` runs it, on its own port and DATA_DIR; resolves once it is ready. */
async function startServer (databaseUrl: string | undefined): Promise<{ baseUrl: string, password: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-data-'))
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const password = randomBytes(12).toString('base64url')
  const child = spawn(process.execPath, [join(ROOT, 'server.ts')], {
    // The working directory is DATA_DIR: no .env of the checkout applies, the run depends only on what is given here.
    cwd: dataDir,
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), BASE_URL: baseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn',
      SEED_DEMO: 'true', DEMO_ADMIN_EMAIL: options.email, DEMO_ADMIN_PASSWORD: password, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl })
    },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  cleanups.push(() => stop(child))
  // Migrations and, with the embedded PostgreSQL, initdb: seconds on an idle machine, minutes on a busy one.
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline && child.exitCode === null) {
    const ready = await fetch(`${baseUrl}/health/ready`).then((response) => response.status === 200, () => false)
    if (ready) return { baseUrl, password }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the server did not become ready at ${baseUrl} (exit status ${child.exitCode})`)
}

/** Forwards every request to `baseUrl` with the bearer token added; responses (SSE included) are streamed back. */
async function startTokenProxy (baseUrl: string, accessToken: string): Promise<Server> {
  const upstream = new URL(baseUrl)
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${accessToken}` }
    const forwarded = request({ hostname: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers }, (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers)
      response.pipe(outgoing)
    })
    forwarded.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' })
      outgoing.end(`conformance proxy: ${error.message}`)
    })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

function run (command: string, args: string[], options: { stdio: 'inherit' }): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, cwd: ROOT })
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })
}

function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGINT')
  })
}
