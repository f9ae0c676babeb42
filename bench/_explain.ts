import pg from 'pg'
import { startServer } from './child-process.ts'
import { createBenchDatabase, provideServer } from './database.ts'
import { prepareMetrics, weekAtHourSteps } from './metrics-samples.ts'
import { INSTANCES_COMPANY, prepareTenant, signup } from './scenarios.ts'
import { METRICS_HISTORY } from '../plugins/app/metrics/metrics.queries.ts'
const dbServer = await provideServer(console.log)
const database = await createBenchDatabase(dbServer.adminUrl)
const app = await startServer(new URL('./app-server.ts', import.meta.url), { BENCH_CHILD_DATABASE_URL: database.url, BENCH_POOL_MAX: '10' })
const session = await signup(app.url)
const instanceId = await prepareTenant(database.url, session, INSTANCES_COMPANY)
await prepareMetrics(database.url, session.user.tenant_id, instanceId)
const q = new URLSearchParams(weekAtHourSteps())
const res = await fetch(`${app.url}/api/instances/${instanceId}/metrics/history?${q}`, { headers: { authorization: `Bearer ${session.token}` } })
const body = await res.text()
console.log('status', res.status, 'bytes', body.length)
await app.stop()
console.log(JSON.stringify({ url: database.url, tenant: session.user.tenant_id, instanceId, from: q.get('from'), to: q.get('to') }))
