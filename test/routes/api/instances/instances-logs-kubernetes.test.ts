import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { cleanupInstances, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { fakeKubeApiServer } from '../../../support/kube/fake-api-server.ts'
import { openSse, type SseConnection } from '../../../support/sse.ts'

const lineOf = (data: string): string => (JSON.parse(data) as { line: string }).line

t.test('Kubernetes: the pod log API for /logs, one follow for every viewer of the stream, and resume', async (t) => {
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
  const namespace = `erp-${admin.subdomain}`
  const subdomain = uniqueSubdomain('klog')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Kube', subdomain, erp_version: '17.0', backend: 'kubernetes' } })
  t.equal(created.statusCode, 202, created.body)
  const id: number = created.json().instance.id
  await waitForState(app, admin.token, id, ['running'])
  kube.setPodLogs(namespace, `erp-${subdomain}`, 'INFO odoo: starting\nERROR odoo: addon foo failed\nINFO odoo: ready\n')

  const logs = async (query = '') => app.inject({ method: 'GET', url: `/api/instances/${id}/logs${query}`, headers: bearer(admin.token) })
  const all = (await logs()).json()
  t.same(all.lines.map((l: { line: string }) => l.line), ['INFO odoo: starting', 'ERROR odoo: addon foo failed', 'INFO odoo: ready'], 'oldest first')
  t.ok(all.lines.every((l: { stream: string, time: string }) => l.stream === 'stdout' && /\.\d{9}Z$/.test(l.time)), 'stdout, with the kubelet\'s timestamps')
  t.same((await logs('?tail=1')).json().lines.map((l: { line: string }) => l.line), ['INFO odoo: ready'], 'tailLines')
  t.same((await logs(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).json().lines, [], 'since a later time: nothing')
  const logRead = kube.requests.filter((r) => r.path.endsWith('/log')).at(-1)
  t.match(logRead?.query, { container: 'erp', timestamps: 'true' }, 'the pod log API of the instance\'s pod')

  const streamUrl = async (): Promise<string> => {
    const answer = (await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream-token`, headers: bearer(admin.token) })).json()
    return answer.stream_url.replace('http://portal.test', origin)
  }
  const viewers: SseConnection[] = []
  for (let i = 0; i < 3; i++) viewers.push(await openSse(await streamUrl()))
  for (let i = 0; i < 50 && kube.podLogFollowers() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  kube.appendPodLog(namespace, `erp-${subdomain}`, 'INFO odoo: request 1')
  for (const viewer of viewers) t.equal(lineOf((await viewer.waitFor(() => true, 1000)).data), 'INFO odoo: request 1', 'a new line reaches every viewer')
  t.equal(kube.podLogFollowers(), 1, 'three viewers, one follow of the pod log')

  const [first] = viewers
  const lastId = first!.events.at(-1)!.id!
  for (const viewer of viewers) viewer.close()
  kube.appendPodLog(namespace, `erp-${subdomain}`, 'INFO odoo: request 2')
  kube.appendPodLog(namespace, `erp-${subdomain}`, 'INFO odoo: request 3')
  const resumed = await openSse(await streamUrl(), { 'last-event-id': lastId })
  await resumed.waitFor(() => resumed.events.length >= 2, 2000)
  kube.appendPodLog(namespace, `erp-${subdomain}`, 'INFO odoo: request 4')
  await resumed.waitFor(() => resumed.events.length >= 3, 2000)
  resumed.close()
  t.same(resumed.events.map((e) => lineOf(e.data)), ['INFO odoo: request 2', 'INFO odoo: request 3', 'INFO odoo: request 4'], 'what was missed, then what came, once each')

  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['stopped'])
  const stopped = await logs()
  t.equal(stopped.statusCode, 200)
  t.same(stopped.json().lines, [], 'no pod, no logs')
  t.match(stopped.json().message, /no pod running/)
  t.same(kube.internalErrors, [])
})
