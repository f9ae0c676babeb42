/**
 * Rolling restart under load: two portal processes behind a proxy that follows their readiness
 * (as a Kubernetes Service does), a mixed read load through it (autocannon), and each replica in
 * turn stopped with SIGTERM and started again on the same port. Every request must succeed: the
 * drain (readiness false first, `Connection: close`, in-flight requests finished) is what keeps
 * the proxy from sending to, or reusing a socket of, a replica that is going away.
 * Long: run by .ci/replicas.sh, not by the main suite.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon, { type Request, type Result } from 'autocannon'
import t from 'tap'
import { bearer, signup } from '../support/accounts.ts'
import { build, TEST_ERP_CREDENTIALS_KEY, TEST_JWT_SECRET } from '../support/build.ts'
import { createTestDatabase } from '../support/database.ts'
import { recordInstances } from '../support/instance-rows.ts'
import { freePort, startServer, waitForReady, type Running } from '../support/process.ts'
import { startReadinessProxy } from '../support/readiness-proxy.ts'

const databaseUrl = await createTestDatabase(t)
const dataDir = await mkdtemp(join(tmpdir(), 'rolling-restart-'))
t.teardown(() => rm(dataDir, { recursive: true, force: true }))
const proxyPort = await freePort()
// The session token is issued for BASE_URL: the seeder's must be the replicas'.
const { app: seeder } = await build(t, { databaseUrl, env: { JOB_WORKERS: false, BASE_URL: `http://127.0.0.1:${proxyPort}` } })
const person = await signup(seeder)
const [instanceId] = await recordInstances(seeder, person.user.tenant_id, { count: 1, backend: 'docker', states: ['running'] })

const ports = [await freePort(), await freePort()]
const targets = ports.map((port) => `http://127.0.0.1:${port}`)
const replicaEnv = (port: number) => ({
  PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${proxyPort}`, DATABASE_URL: databaseUrl, DATA_DIR: dataDir,
  JWT_SECRET: TEST_JWT_SECRET, ERP_CREDENTIALS_KEY: TEST_ERP_CREDENTIALS_KEY, SEED_DEMO: 'false',
  INSTANCE_BACKENDS: 'docker', RECONCILE_SECONDS: '3600', SHUTDOWN_DELAY_SECONDS: '2'
})
const replicas: Running[] = []
t.teardown(() => { for (const running of replicas) running.child.kill('SIGKILL') })
const startReplica = async (index: number) => {
  const running = startServer(replicaEnv(ports[index] as number))
  replicas.push(running)
  await waitForReady(`${targets[index]}/health/ready`, running)
  return running
}
const current = [await startReplica(0), await startReplica(1)]
const proxy = await startReadinessProxy(targets, { port: proxyPort, intervalMs: 200 })
t.teardown(() => proxy.close())

const headers = bearer(person.token)
const requests: Request[] = ['/api/me', '/api/instances', `/api/instances/${instanceId}/status`].map((path) => ({ method: 'GET', path, headers }))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('SIGTERM and restart of each replica in turn under a mixed read load: no request fails', { timeout: 300_000 }, async (t) => {
  const load = autocannon({ url: proxy.origin, connections: 8, duration: 600, timeout: 10, requests })
  await sleep(2000)
  for (const index of [0, 1]) {
    const target = targets[index] as string
    await proxy.until(targets[1 - index] as string, true)
    ;(current[index] as Running).child.kill('SIGTERM')
    await proxy.until(target, false, 10_000)
    t.equal(await (current[index] as Running).exited, 0, `replica ${index + 1} drained and exited 0`)
    current[index] = await startReplica(index)
    await proxy.until(target, true)
    const before = proxy.served.get(target) ?? 0
    await sleep(2000)
    t.ok((proxy.served.get(target) ?? 0) > before, `replica ${index + 1} is back on the same port and serving`)
  }
  load.stop()
  const result = await load
  t.comment(`rolling restart: ${result.requests.total} requests, ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx; ` +
    `status codes ${JSON.stringify(result.statusCodeStats)}; served per replica ${JSON.stringify([...proxy.served.values()])}`)
  t.ok(result.requests.total > 100, 'the load ran throughout')
  t.equal(result.errors, 0, 'no connection errors')
  t.equal(result.timeouts, 0, 'no timeouts')
  t.equal(result.non2xx, 0, 'no non-2xx answers')
  t.same(Object.keys(result.statusCodeStats), ['200'], 'every answer a 200')
})

// A figure, not an assertion: this machine's 2 cores also run PostgreSQL, the proxy and autocannon.
t.test('figure: /api/me req/s through a proxy to one replica vs to both, in the same run', { timeout: 180_000 }, async (t) => {
  const one = await startReadinessProxy([targets[0] as string])
  t.teardown(() => one.close())
  const me = { url: '', connections: 16, duration: 10, headers, requests: [{ method: 'GET', path: '/api/me', headers }] }
  // Alternated, so that whatever else the machine does weighs on both alike.
  const runs = []
  for (const origin of [one.origin, proxy.origin, one.origin, proxy.origin]) runs.push(await autocannon({ ...me, url: origin }))
  const [single, both, singleAgain, bothAgain] = runs as [Result, Result, Result, Result]
  const figure = (result: Result) => `${Math.round(result.requests.average)} req/s (p99 ${result.latency.p99} ms)`
  t.comment(`/api/me through the proxy: one replica ${figure(single)}, ${figure(singleAgain)}; two replicas ${figure(both)}, ${figure(bothAgain)}`)
  t.equal(runs.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0), 0, 'every request of the measurement answered 200')
})
