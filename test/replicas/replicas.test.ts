/**
 * Two replicas of the portal and two of the authorization server on one PostgreSQL,
 * behind a round-robin proxy (http-proxy): consecutive requests land on alternate
 * replicas, so every step of a flow runs on a different process than the step before.
 * Long: run by .ci/replicas.sh, not by the main suite.
 */
import { createServer } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import httpProxy from 'http-proxy'
import t from 'tap'
import * as oauth from 'oauth4webapi'
import type { FastifyInstance } from 'fastify'
import { startAuthServer } from '../../auth-server/server.ts'
import { loadConfig } from '../../config/env.ts'
import { bearer, signup } from '../support/accounts.ts'
import { build, TEST_JWT_SECRET } from '../support/build.ts'
import { createTestDatabase } from '../support/database.ts'
import { recordInstances } from '../support/instance-rows.ts'
import { waitFor } from '../support/invitations-flow.ts'
import { mcpHeaders } from '../support/mcp.ts'
import { connectAgent, insecure } from '../support/oauth-agent.ts'
import { freePort } from '../support/process.ts'

const databaseUrl = await createTestDatabase(t)
const dataDir = await mkdtemp(join(tmpdir(), 'replicas-'))
t.teardown(() => rm(dataDir, { recursive: true, force: true }))
const proxyPort = await freePort()
const origin = `http://127.0.0.1:${proxyPort}`

const portals: FastifyInstance[] = []
const targets: string[] = []
for (let replica = 0; replica < 2; replica++) {
  const authServer = await startAuthServer({
    config: loadConfig({ DATABASE_URL: databaseUrl, BASE_URL: origin, PORTAL_API_URL: origin, DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET }),
    port: 0,
    log: () => {}
  })
  t.teardown(() => authServer.close())
  const { app } = await build(t, {
    databaseUrl,
    env: {
      BASE_URL: origin, AUTH_PORT: Number(new URL(authServer.url).port), INSTANCE_BACKENDS: 'docker',
      LOGIN_LIMIT_PER_IP: 1000, LOGIN_LIMIT_PER_ACCOUNT: 4, RECONCILE_SECONDS: 3600
    }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  portals.push(app)
  targets.push(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`)
}

/** Which replica (0 or 1) served each request through the proxy, in order. */
const served: Array<{ replica: number, method: string, path: string }> = []
const proxy = httpProxy.createProxyServer({})
proxy.on('error', (_error, _request, response) => { if ('writeHead' in response) response.writeHead(502).end() })
let turn = 0
const front = createServer((request, response) => {
  const replica = turn++ % targets.length
  served.push({ replica, method: request.method ?? '', path: (request.url ?? '').split('?')[0] ?? '' })
  proxy.web(request, response, { target: targets[replica] })
})
await new Promise<void>((resolve) => front.listen(proxyPort, '127.0.0.1', resolve))
t.teardown(() => new Promise((resolve) => { front.closeAllConnections(); front.close(resolve) }))

const person = await signup(portals[0] as FastifyInstance)
const servedSince = (mark: number) => served.slice(mark)

t.test('the whole agent flow with each step on the other replica', async (t) => {
  const mark = served.length
  const { agent, tokens } = await connectAgent(origin, { person })
  const flow = servedSince(mark)
  for (const path of ['/.well-known/oauth-authorization-server', '/api/oauth/register', '/oauth/authorize', '/oauth/handoff', '/oauth/consent', '/oauth/token']) {
    t.ok(flow.some((step) => step.path.startsWith(path)), `${path} was part of the flow`)
  }
  t.ok(flow.every((step, i) => i === 0 || step.replica !== flow[i - 1]?.replica), `${flow.length} requests, alternating replicas`)

  const refreshed = await oauth.processRefreshTokenResponse(agent.as, agent.client,
    await oauth.refreshTokenGrantRequest(agent.as, agent.client, oauth.None(), tokens.refresh_token as string, insecure))
  t.not(refreshed.refresh_token, tokens.refresh_token, 'refreshed (and rotated) on a replica that did not issue it')

  const call = async () => fetch(`${origin}/api/mcp`, {
    method: 'POST', headers: mcpHeaders(refreshed.access_token), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_instances', arguments: {} } })
  })
  const first = await call()
  const second = await call()
  t.equal(first.status, 200, 'an MCP call on one replica')
  t.equal(second.status, 200, 'and on the other')
  await oauth.processRevocationResponse(await oauth.revocationRequest(agent.as, agent.client, oauth.None(), refreshed.access_token, insecure))
  const revokedOn = served.at(-1)?.replica
  const after = await call()
  t.not(served.at(-1)?.replica, revokedOn, 'the next call went to the other replica')
  t.equal(after.status, 401, 'which refuses the revoked access token')
})

t.test('a logout on one replica is refused on the other at the next request', async (t) => {
  const login = await fetch(`${origin}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: person.email, password: person.password }) })
  const { token } = await login.json() as { token: string }
  t.equal((await fetch(`${origin}/api/me`, { headers: bearer(token) })).status, 200)
  t.equal((await fetch(`${origin}/api/logout`, { method: 'POST', headers: bearer(token) })).status < 300, true, 'logged out')
  const loggedOutOn = served.at(-1)?.replica
  const me = await fetch(`${origin}/api/me`, { headers: bearer(token) })
  t.not(served.at(-1)?.replica, loggedOutOn, 'asked the other replica')
  t.equal(me.status, 401)
})

t.test('rate limits are shared: the fifth attempt is refused though neither replica saw five', async (t) => {
  const mark = served.length
  const statuses: number[] = []
  const login = `nobody-${Date.now()}@example.com` // a key of its own: the other tests' logins do not count
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${origin}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login, password: 'not the password at all' }) })
    statuses.push(response.status)
  }
  t.same(statuses, [401, 401, 401, 401, 429], 'LOGIN_LIMIT_PER_ACCOUNT=4 across both')
  const perReplica = [0, 1].map((replica) => servedSince(mark).filter((step) => step.replica === replica).length)
  t.ok(perReplica.every((count) => count <= 3), `attempts per replica: ${perReplica.join(', ')}`)
})

t.test('100 instance actions queued through both replicas each run exactly once', { timeout: 300_000 }, async (t) => {
  const ids = await recordInstances(portals[0] as FastifyInstance, person.user.tenant_id, { count: 100, backend: 'docker', states: ['running'] })
  for (const id of ids) {
    const response = await fetch(`${origin}/api/instances/${id}/stop`, { method: 'POST', headers: bearer(person.token) })
    if (response.status !== 202) t.fail(`stop ${id}: ${response.status} ${await response.text()}`)
  }
  await waitFor(async () => {
    const [row] = await (portals[0] as FastifyInstance).sql<{ stopped: number }>({ text: "SELECT count(*)::int AS stopped FROM instances WHERE id = ANY($1) AND state = 'stopped'", values: [ids] })
    return row?.stopped === 100 ? true : undefined
  }, 240_000, '100 stopped instances')
  // A handler's last write lands before pg-boss records the job complete: wait until none is left open.
  await waitFor(async () => {
    const [row] = await (portals[0] as FastifyInstance).sql<{ open: number }>({ text: "SELECT count(*)::int AS open FROM pgboss.job WHERE name = 'instance-actions' AND state IN ('created', 'retry', 'active')", values: [] })
    return row?.open === 0 ? true : undefined
  }, 60_000, 'no instance action left open')

  const [jobs] = await (portals[0] as FastifyInstance).sql<{ completed: number, retried: number }>({
    text: "SELECT count(*) FILTER (WHERE state = 'completed')::int AS completed, count(*) FILTER (WHERE retry_count > 0)::int AS retried FROM pgboss.job WHERE name = 'instance-actions'",
    values: []
  })
  t.same(jobs, { completed: 100, retried: 0 }, 'one job each, none retried')
  const runs = await Promise.all(portals.map(async (app) => (await app.serviceMetrics.jobs.get()).values
    .filter((v) => v.labels.queue === 'instance-actions')
    .reduce((sum, v) => ({ ...sum, [String(v.labels.outcome)]: (sum[String(v.labels.outcome)] ?? 0) + v.value }), {} as Record<string, number>)))
  t.equal((runs[0]?.completed ?? 0) + (runs[1]?.completed ?? 0), 100, `handler runs across replicas: ${JSON.stringify(runs)}`)
  t.equal((runs[0]?.failed ?? 0) + (runs[1]?.failed ?? 0), 0)
  t.ok(runs.every((r) => (r.completed ?? 0) > 0), 'both replicas worked the queue')
  const [activity] = await (portals[0] as FastifyInstance).sql<{ once: number }>({
    text: "SELECT count(*)::int AS once FROM (SELECT instance_id FROM activities WHERE instance_id = ANY($1) AND type = 'instance.stopped' GROUP BY instance_id HAVING count(*) = 1) x",
    values: [ids]
  })
  t.equal(activity?.once, 100, 'every instance has its stop recorded once')
})
