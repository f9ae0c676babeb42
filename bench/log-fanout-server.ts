/**
 * The log fan-out scenario's server: the real app with the Kubernetes backend on
 * the fake API server (test/support/kube), one running instance, and a handler
 * that writes log lines into its pod at a fixed rate. Each line carries the
 * time it was written (ms since the epoch), so the clients in bench/run.ts
 * measure delivery latency on the same clock.
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL and BENCH_POOL_MAX.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeKubeApiServer } from '../test/support/kube/fake-api-server.ts'
import { startBenchApp } from './bench-app.ts'
import { serveUntilStopped } from './child-process.ts'

// jobRunMs: the ERP's first-start Job ends by itself, as a real one-off does.
const kube = await startFakeKubeApiServer({ readyDelayMs: 0, jobRunMs: 0 })
const dir = mkdtempSync(join(tmpdir(), 'bench-kubeconfig-'))
writeFileSync(join(dir, 'config'), kube.kubeconfigText)
const { app, port, close } = await startBenchApp({ INSTANCE_BACKENDS: 'kubernetes', KUBECONFIG: join(dir, 'config'), RECONCILE_SECONDS: 3600 })

// One company and one running instance, through the real routes.
const suffix = Math.random().toString(36).slice(2, 10)
const signup = await app.inject({ method: 'POST', url: '/api/signup', payload: { company: `Fan-out ${suffix}`, subdomain: `fan-${suffix}`, name: 'Bench', email: `fan-${suffix}@example.com`, password: 'correct horse battery staple' } })
const { token, user } = signup.json() as { token: string, user: { tenant_id: string } }
const auth = { authorization: `Bearer ${token}` }
const subdomain = `fanout-${suffix}`
const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: auth, payload: { name: 'Fan-out', subdomain, erp_version: '17.0', backend: 'kubernetes' } })
const id = (created.json() as { instance: { id: number } }).instance.id
for (let i = 0; ; i++) {
  const state = (await app.inject({ method: 'GET', url: `/api/instances/${id}/status`, headers: auth })).json().state
  if (state === 'running') break
  if (i > 600) throw new Error(`the fan-out instance is ${state}, not running`)
  await new Promise((resolve) => setTimeout(resolve, 50))
}
const namespace = `erp-fan-${suffix}`
void user

serveUntilStopped({ port }, async () => {
  await close()
  await kube.close()
  rmSync(dir, { recursive: true, force: true })
}, {
  /** A fresh stream URL (a token is good for 60 s). */
  streamUrl: async () => {
    const answer = (await app.inject({ method: 'GET', url: `/api/instances/${id}/logs/stream-token`, headers: auth })).json() as { stream_url: string }
    return answer.stream_url.replace('http://127.0.0.1', `http://127.0.0.1:${port}`)
  },
  stats: async () => ({ ...app.logs.streamStats(), follows: kube.podLogFollowers() }),
  /** Writes `rate` lines a second for `seconds`, in 10 ms batches; answers how many. */
  emit: async ({ rate, seconds }: { rate: number, seconds: number }) => {
    let written = 0
    const total = rate * seconds
    const started = Date.now()
    while (written < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * rate))
      for (; written < due; written++) kube.appendPodLog(namespace, `erp-${subdomain}`, `bench ${written} ${Date.now()}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return written
  }
})
