/**
 * `node bench/profile.ts <scenario name part>`: runs one scenario of our app
 * under load with the app's process started with `--cpu-prof`, then prints
 * where that process spent its CPU time (self time by function and by file or
 * package; see bench/cpu-profile.ts). No baseline, no ratios: it answers
 * "where does the time go", not "how fast".
 *
 * The same bench database, seed and session as `npm run bench`. Start-up and a
 * 2 s warm-up are left out of the summary; the whole profile is kept in
 * bench/results/profiles/ (open it in Chrome DevTools or VS Code).
 * Settings: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (100),
 * BENCH_POOL_MAX (10), PROFILE_TOP (rows per table, 25).
 */
import { mkdir, readdir } from 'node:fs/promises'
import autocannon from 'autocannon'
import { startServer, type RunningServer } from './child-process.ts'
import { createBenchDatabase, provideServer } from './database.ts'
import { printProfileSummary } from './cpu-profile.ts'
import { agentAccessToken } from './mcp-agent.ts'
import { prepareMetrics } from './metrics-samples.ts'
import { HOME_COMPANY, INSTANCES_COMPANY, appScenarioNames, appScenarios, prepareTenant, preflight, signup } from './scenarios.ts'

const wanted = process.argv[2]
if (wanted === undefined) {
  console.error(`usage: node bench/profile.ts <part of a scenario name>; scenarios: ${appScenarioNames().join(', ')}`)
  process.exit(2)
}
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const profileDir = new URL('./results/profiles/', import.meta.url).pathname
const log = (line: string) => console.log(`# ${line}`)

const dbServer = await provideServer(log)
const database = await createBenchDatabase(dbServer.adminUrl)
let app: RunningServer | undefined
let auth: RunningServer | undefined
try {
  await mkdir(profileDir, { recursive: true })
  const before = new Set(await readdir(profileDir))
  const childEnv = { BENCH_CHILD_DATABASE_URL: database.url, BENCH_POOL_MAX: String(number('BENCH_POOL_MAX', 10)) }
  // The auth server issues the MCP scenario's access token, as in `npm run bench`; it is not profiled.
  auth = await startServer(new URL('./oauth-ours-server.ts', import.meta.url), childEnv)
  app = await startServer(new URL('./app-server.ts', import.meta.url), {
    ...childEnv,
    BENCH_AUTH_PORT: new URL(auth.url).port,
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}`
  })
  const session = await signup(app.url)
  const home = await signup(app.url)
  await prepareTenant(database.url, home, HOME_COMPANY)
  const tenant = { instanceId: await prepareTenant(database.url, session, INSTANCES_COMPANY), agentToken: await agentAccessToken(auth, session.user.id), homeToken: home.token }
  await prepareMetrics(database.url, session.user.tenant_id, tenant.instanceId)
  const scenario = appScenarios(session, tenant).find((s) => s.name.includes(wanted))
  if (scenario === undefined) throw new Error(`no scenario matches "${wanted}"`)
  await preflight(app.url, scenario)
  const load = (duration: number) => autocannon({
    url: `${app!.url}${scenario.path}`,
    method: scenario.method,
    headers: scenario.headers,
    connections: number('BENCH_CONNECTIONS', 100),
    duration,
    ...(scenario.body === undefined ? {} : { body: scenario.body })
  })
  await load(2) // warm-up: the JIT, prepared statements, pools; left out of the summary
  log(`${scenario.name}: ${number('BENCH_DURATION', 10)} s at ${number('BENCH_CONNECTIONS', 100)} connections, profiled`)
  const since = Number(process.hrtime.bigint() / 1000n)
  const result = await load(number('BENCH_DURATION', 10))
  log(`${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors`)
  await app.stop()
  app = undefined
  const written = (await readdir(profileDir)).filter((name) => !before.has(name) && name.endsWith('.cpuprofile'))
  for (const name of written) {
    log(`profile: ${profileDir}${name}`)
    await printProfileSummary(`${profileDir}${name}`, number('PROFILE_TOP', 25), since)
  }
} finally {
  await app?.stop()
  await auth?.stop()
  await database.drop()
  await dbServer.stop()
}
