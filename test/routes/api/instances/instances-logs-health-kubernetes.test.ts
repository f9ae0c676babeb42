/**
 * Kubernetes: the kubelet's probes make the ERP write an access line per probe; those lines are
 * left out of GET /logs and the live stream, the rest kept, the tail counted without them. The pod
 * log API is the fake API server's (test/support/kube).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { fakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'
import { accessLine, eventLine, healthLine, quietErpLog } from '../../../support/odoo-log-lines.ts'
import { openSse } from '../../../support/sse.ts'

t.test('Kubernetes: probe lines left out of /logs and the live stream; the tail counted without them', async (t) => {
  const kube = await fakeKubeApiServer(t, { readyDelayMs: 200, jobRunMs: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'erp-kubeconfig-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'config'), kube.kubeconfigText)
  const { app, databaseUrl } = await build(t, {
    env: { KUBECONFIG: join(dir, 'config'), INSTANCE_BACKENDS: 'kubernetes', INSTANCES_DOMAIN: 'erp.test', RECONCILE_SECONDS: 3600, INSTANCE_JOB_RETRIES: 1 }
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('khlog')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Probed', subdomain, erp_version: '17.0', backend: 'kubernetes' } })
  t.equal(created.statusCode, 202, created.body)
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'])
  const namespace = `erp-${admin.subdomain}`
  const pod = `erp-${subdomain}`
  const quiet = quietErpLog(10)
  const failing = healthLine(59, 500)
  const login = accessLine(58, '/web/login')
  kube.setPodLogs(namespace, pod, `${[...quiet.lines, failing, login, healthLine(60)].join('\n')}\n`)

  const logs = async (query = '') => (await app.inject({ method: 'GET', url: `/api/instances/${id}/logs${query}`, headers: bearer(admin.token) })).json().lines.map((l: { line: string }) => l.line)
  t.same(await logs(), [...quiet.events, failing, login], 'the ERP\'s lines, a failing probe and another page; no passed probe')
  t.same(await logs('?tail=3'), [quiet.events[9], failing, login], 'the last three shown lines')
  t.same(await logs('?tail=11'), [...quiet.events.slice(1), failing, login], 'tail=11: eleven lines')
  const tails = kube.requests.filter((r) => r.path.endsWith('/log')).map((r) => Number(r.query.tailLines))
  t.ok(tails.some((n) => n > 11), `the pod log API was asked for more lines than shown (${tails.join(', ')})`)

  const token = (await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream-token`, headers: bearer(admin.token) })).json()
  const stream = await openSse(token.stream_url.replace('http://portal.test', origin))
  t.teardown(() => stream.close())
  for (let i = 0; i < 100 && kube.podLogFollowers() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  for (const line of [healthLine(1), eventLine('live 1'), healthLine(2), healthLine(3, 503), eventLine('live 2'), healthLine(4), eventLine('live 3')]) kube.appendPodLog(namespace, pod, line)
  const line = (e: { data: string }) => (JSON.parse(e.data) as { line: string }).line
  await stream.waitFor((e) => e.event === 'message' && line(e) === eventLine('live 3'), 5000)
  t.same(stream.events.filter((e) => e.event === 'message').map(line), [eventLine('live 1'), healthLine(3, 503), eventLine('live 2'), eventLine('live 3')], 'live: no passed probe, the rest in order')
  t.same(kube.internalErrors, [])
})
