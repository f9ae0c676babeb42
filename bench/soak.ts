/**
 * `npm run soak`: the real app under a steady mixed read/write load on loopback, for
 * SOAK_MINUTES (10), measured in consecutive windows of SOAK_WINDOW_SECONDS (30).
 *
 * Each connection cycles through the same mix a portal user makes: reads of the session, the
 * instance list, an instance's status, the activity feed and the dashboard; writes that create a
 * support ticket and reply to it (each write also records an activity, so the tables grow all along
 * the run). Company settings are left out: every write to them locks the company's one row, so
 * the run would measure lock waits.
 *
 * Printed per window: req/s, p99 latency, errors (connection errors and timeouts), non-2xx
 * answers and the app process's RSS. At the end: the error count (must be 0), p99 over time, and
 * RSS after the first minute (the warm-up) next to RSS at the end (medians of three windows). Exits 1 when any request
 * failed or RSS grew 15 % or more after the warm-up. The figures are also written to
 * bench/results/soak.json. Other settings: SOAK_CONNECTIONS (20; bounded on purpose: this is
 * endurance, not peak load), BENCH_POOL_MAX (10), BENCH_DATABASE_URL / DATABASE_URL.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import autocannon, { type Request } from 'autocannon'
import { startServer, type RunningServer } from './child-process.ts'
import { createBenchDatabase, provideServer, type BenchDatabase, type DatabaseServer } from './database.ts'
import { HOME_COMPANY, prepareTenant, signup } from './scenarios.ts'

const log = (line: string) => console.log(`# ${line}`)
const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

const minutes = setting('SOAK_MINUTES', 10)
const windowSeconds = setting('SOAK_WINDOW_SECONDS', 30)
const connections = setting('SOAK_CONNECTIONS', 20)
const poolMax = setting('BENCH_POOL_MAX', 10)
const MAX_RSS_GROWTH = 0.15

interface Window {
  endsAtSecond: number
  requestsPerSecond: number
  p99Ms: number
  errors: number
  non2xx: number
  rssMb: number
}

/** What one connection sends, in turn: the reply goes to the ticket that connection opened just before. */
function mix (token: string, instanceId: string): Request[] {
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const get = (path: string): Request => ({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } })
  let n = 0
  return [
    get('/api/me'),
    get('/api/instances'),
    get(`/api/instances/${instanceId}/status`),
    get('/api/activity?limit=20'),
    get('/api/dashboard'),
    {
      method: 'POST',
      path: '/api/tickets/create',
      headers: json,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ subject: `Soak ticket ${++n}`, description: 'Opened by the soak run.' }) }),
      onResponse: (status, body, context) => {
        if (status === 201) context.ticketId = (JSON.parse(body) as { ticket: { id: string } }).ticket.id
      }
    },
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ message: 'A reply from the soak run.' }),
      setupRequest: (request, context) => ({ ...request, path: `/api/tickets/${String(context.ticketId)}/reply` })
    }
  ]
}

let dbServer: DatabaseServer | undefined
let database: BenchDatabase | undefined
let app: RunningServer | undefined
const windows: Window[] = []
try {
  dbServer = await provideServer(log)
  database = await createBenchDatabase(dbServer.adminUrl)
  app = await startServer(new URL('./app-server.ts', import.meta.url), { BENCH_CHILD_DATABASE_URL: database.url, BENCH_POOL_MAX: String(poolMax) })
  const session = await signup(app.url)
  const instanceId = await prepareTenant(database.url, session, HOME_COMPANY)
  const requests = mix(session.token, instanceId)
  const count = Math.max(1, Math.round((minutes * 60) / windowSeconds))
  log(`${database.name} on ${dbServer.description}; ${count} windows of ${windowSeconds} s at ${connections} connections, ${requests.length} requests in the mix`)
  console.log('window end (s)  req/s  p99 ms  errors  non-2xx  RSS MB')
  for (let i = 1; i <= count; i++) {
    const result = await autocannon({ url: app.url, connections, duration: windowSeconds, requests })
    const rssMb = (await app.call<number>('rssBytes', null)) / 2 ** 20
    const window: Window = {
      endsAtSecond: i * windowSeconds,
      requestsPerSecond: Math.round(result.requests.average),
      p99Ms: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      rssMb: Math.round(rssMb * 10) / 10
    }
    windows.push(window)
    console.log([window.endsAtSecond, window.requestsPerSecond, window.p99Ms, window.errors, window.non2xx, window.rssMb].map((value, k) => String(value).padStart([14, 6, 7, 7, 8, 7][k]!)).join('  '))
  }
} finally {
  await app?.stop().catch((error: unknown) => console.error(error))
  await database?.drop().catch((error: unknown) => console.error('could not drop the soak database:', error))
  await dbServer?.stop().catch((error: unknown) => console.error(error))
}

const failed = windows.reduce((sum, window) => sum + window.errors + window.non2xx, 0)
// RSS swings with each garbage collection: compare the median of three windows after the first
// minute (the warm-up) with the median of the last three.
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const warmupWindows = Math.min(Math.ceil(60 / windowSeconds), Math.max(0, windows.length - 3))
const afterWarmup = median(windows.slice(warmupWindows, warmupWindows + 3).map((window) => window.rssMb))
const atEnd = median(windows.slice(-3).map((window) => window.rssMb))
const growth = (atEnd - afterWarmup) / afterWarmup
const summary = {
  date: new Date().toISOString(),
  minutes,
  windowSeconds,
  connections,
  requests: windows.reduce((sum, window) => sum + window.requestsPerSecond * windowSeconds, 0),
  failed,
  p99MsOverTime: windows.map((window) => window.p99Ms),
  rssMbAfterWarmup: afterWarmup,
  rssMbAtEnd: atEnd,
  rssGrowthPercent: Math.round(growth * 1000) / 10,
  windows
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true })
await writeFile(new URL('./results/soak.json', import.meta.url), `${JSON.stringify(summary, null, 2)}\n`)
console.log(`\n# failed requests: ${failed} (must be 0)`)
console.log(`# p99 over time (ms): ${summary.p99MsOverTime.join(' ')}`)
console.log(`# RSS after the warm-up ${afterWarmup} MB, at the end ${atEnd} MB: ${summary.rssGrowthPercent} % (must stay under ${MAX_RSS_GROWTH * 100} %)`)
if (failed > 0 || growth >= MAX_RSS_GROWTH) process.exitCode = 1
