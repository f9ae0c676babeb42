import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../support/build.ts'
import { bearer, signup } from '../../support/accounts.ts'
import { recordInstances } from '../../support/instance-rows.ts'
import { freePort } from '../../../lib/ports.ts'
import { defineQueue } from '../../../lib/job-queue.ts'

// GET /metrics over real HTTP, on a real PostgreSQL: the token gate, what the scrape carries,
// and label sets that stay the same however many ids and odd URLs are requested.

const TOKEN = 'metrics-token-that-is-long-enough-0123456789'
const METRICS_PROBE = defineQueue<{ fail?: boolean }>('metrics-probe', () => ({ retryLimit: 0 }))

async function listening (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  return `http://127.0.0.1:${address.port}`
}

async function scrape (url: string, token = TOKEN): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`)
  return response.text()
}

/** The sample lines of a metric (`name{labels} value`), without comments. */
const samples = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
const value = (text: string, name: string, labels: string) => {
  const line = samples(text, name).find((l) => l.startsWith(`${name}{`) && labels.split(',').every((label) => l.includes(label)))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

t.test('without METRICS_TOKEN there is no /metrics on the main port', async (t) => {
  const { app } = await build(t)
  const base = await listening(app)
  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(response.status, 404)
  t.equal(((await response.json()) as { success: boolean }).success, false, 'in the error envelope')
})

t.test('the token gates the scrape; the scrape carries requests, instances, queues, jobs, refusals and the process', async (t) => {
  const { app } = await build(t, {
    env: { METRICS_TOKEN: TOKEN, JOB_WORKERS: 'false', LOGIN_LIMIT_PER_IP: '1' },
    routes: (app) => {
      void app.jobs.define(METRICS_PROBE, async (job) => {
        if (job.data.fail === true) throw new Error('probe failure')
        return 'done'
      })
    }
  })
  const base = await listening(app)

  const anonymous = await fetch(`${base}/metrics`)
  t.equal(anonymous.status, 401)
  t.equal(anonymous.headers.get('www-authenticate'), 'Bearer')
  t.equal(((await anonymous.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED')
  const wrong = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })
  t.equal(wrong.status, 401, 'a wrong token is refused')

  const admin = await signup(app)
  await recordInstances(app, admin.user.tenant_id, { count: 3, backend: 'docker', states: ['running', 'running', 'stopped'] })
  await recordInstances(app, admin.user.tenant_id, { count: 1, backend: 'kubernetes', states: ['error'] })
  await fetch(`${base}/health/live`)
  await fetch(`${base}/api/me`, { headers: bearer(admin.token) })
  // Two logins from one address with a limit of one a minute: the second is refused.
  for (let i = 0; i < 2; i++) {
    await fetch(`${base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'nobody@example.com', password: 'wrong password!' }) })
  }
  await app.jobs.boss.send('metrics-probe', {})
  await app.jobs.boss.send('metrics-probe', { fail: true })
  await app.jobs.boss.send('metrics-probe', {}, { startAfter: 3600 })

  const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const before = await response.text()
  t.equal(value(before, 'erp_portal_http_request_duration_seconds_count', 'route="/health/live",status_code="200",method="GET"'), 1, 'the request, by route and status')
  t.equal(value(before, 'erp_portal_http_request_duration_seconds_count', 'route="/api/me",status_code="200"'), 1)
  t.equal(value(before, 'erp_portal_instances', 'state="running",backend="docker"'), 2)
  t.equal(value(before, 'erp_portal_instances', 'state="stopped",backend="docker"'), 1)
  t.equal(value(before, 'erp_portal_instances', 'state="error",backend="kubernetes"'), 1)
  t.equal(value(before, 'erp_portal_job_queue_depth', 'queue="metrics-probe",state="ready"'), 2)
  t.equal(value(before, 'erp_portal_job_queue_depth', 'queue="metrics-probe",state="deferred"'), 1)
  t.ok((value(before, 'erp_portal_job_queue_oldest_ready_age_seconds', 'queue="metrics-probe"') ?? -1) >= 0, 'the oldest ready job has an age')
  t.equal(value(before, 'erp_portal_rate_limit_refusals_total', 'limit="login"'), 1, 'the refused login, by limit name')
  t.ok(samples(before, 'process_cpu_user_seconds_total').length === 1, 'default process metrics')
  t.ok(samples(before, 'nodejs_eventloop_lag_seconds').length === 1)

  const drained = await app.jobs.drain(METRICS_PROBE)
  t.equal(drained.length, 2, 'the two due jobs ran')
  const after = await scrape(`${base}/metrics`)
  t.equal(value(after, 'erp_portal_jobs_total', 'queue="metrics-probe",outcome="completed"'), 1)
  t.equal(value(after, 'erp_portal_jobs_total', 'queue="metrics-probe",outcome="failed"'), 1)
  t.equal(value(after, 'erp_portal_job_duration_seconds_count', 'queue="metrics-probe",outcome="completed"'), 1)
  t.equal(value(after, 'erp_portal_job_queue_depth', 'queue="metrics-probe",state="ready"'), 0, 'the backlog is gone')
  t.equal(value(after, 'erp_portal_job_queue_oldest_ready_age_seconds', 'queue="metrics-probe"'), 0)
})

t.test('many distinct ids and unknown URLs add no label sets', async (t) => {
  const { app } = await build(t, { env: { METRICS_TOKEN: TOKEN } })
  const base = await listening(app)
  const admin = await signup(app)
  const [id] = await recordInstances(app, admin.user.tenant_id)
  const series = (text: string) => samples(text, 'erp_portal_http_request_duration_seconds_count')

  const hit = async (round: number) => {
    await fetch(`${base}/api/instances/${id}`, { headers: bearer(admin.token) })
    await fetch(`${base}/api/instances/${1_000_000 + round}`, { headers: bearer(admin.token) })
    await fetch(`${base}/no/such/path/${round}-${Math.random()}`)
    await fetch(`${base}/api/tickets/${crypto.randomUUID()}`, { headers: bearer(admin.token) })
  }
  await hit(0)
  const once = series(await scrape(`${base}/metrics`))
  for (let round = 1; round <= 60; round++) await hit(round)
  const many = series(await scrape(`${base}/metrics`))

  const withoutCounts = (lines: string[]) => lines.map((line) => line.slice(0, line.lastIndexOf(' '))).filter((line) => !line.includes('route="/metrics"')).sort()
  t.same(withoutCounts(many), withoutCounts(once), 'the same label sets after 60 more rounds of distinct ids')
  t.ok(many.some((line) => line.includes('route="/api/instances/:id",status_code="404"')), 'an unknown id counts under the pattern')
  t.ok(many.some((line) => line.includes('route="(unmatched)",status_code="404"')), 'an unknown URL counts under one fixed label')
  t.notOk(many.some((line) => line.includes('/no/such/path') || line.includes(String(1_000_001))), 'no raw URL or id in a label')
  const document = await (await fetch(`${base}/api/openapi.json`)).json() as { paths: Record<string, { get?: { security?: unknown, responses?: Record<string, { content?: Record<string, unknown> }> } }> }
  t.same(document.paths['/metrics']?.get?.security, [{ metricsToken: [] }], 'in the OpenAPI document, with its own bearer scheme')
  t.ok(document.paths['/metrics']?.get?.responses?.['200']?.content?.['text/plain'], 'answered as text')
  const unmatched = many.find((line) => line.includes('route="(unmatched)"'))
  t.equal(Number(unmatched?.slice(unmatched.lastIndexOf(' ') + 1)), 61, 'every odd URL counted, under that one label')
})

t.test('METRICS_PORT serves the scrape on a listener of its own; a failing backend call is counted', async (t) => {
  const port = await freePort()
  const previous = process.env.DOCKER_HOST
  process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock' // dockerode reads it when the backend is built
  t.teardown(() => { if (previous === undefined) delete process.env.DOCKER_HOST; else process.env.DOCKER_HOST = previous })
  const { app } = await build(t, { env: { METRICS_PORT: String(port), METRICS_TOKEN: TOKEN, HOST: '127.0.0.1', INSTANCE_BACKENDS: 'docker' } })
  const base = await listening(app)

  t.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404, 'not on the main port')
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 401, 'the token is required there too')
  t.equal((await fetch(`http://127.0.0.1:${port}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404)

  await t.rejects(app.instances.backends.require('docker'), 'the engine does not answer')
  const text = await scrape(`http://127.0.0.1:${port}/metrics`)
  t.equal(value(text, 'erp_portal_backend_call_errors_total', 'backend="docker",operation="check"'), 1, 'by backend and operation')
  t.ok(samples(text, 'process_resident_memory_bytes').length === 1)
})
