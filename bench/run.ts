/**
 * `npm run bench`: measures each scenario of our app between two runs of the
 * bare baseline server, each server in a child process of its own, with
 * autocannon here; each ratio is against the mean of those two baseline runs.
 * Prints a table, writes bench/results/latest.json, and exits non-zero if any
 * run saw connection errors, timeouts or non-2xx answers. The ratios against
 * the baseline are reported, never asserted.
 *
 * The token endpoint's authorization-code exchange has a baseline of its own
 * (bare oidc-provider, in-memory adapter): see bench/oauth-pair.ts.
 *
 * Settings (environment): BENCH_DURATION (s, default 10), BENCH_CONNECTIONS
 * (100), BENCH_WARMUP (s, 2), BENCH_POOL_MAX (10, both servers), BENCH_ONLY
 * (run only the scenarios whose name contains it, or one of its comma-separated parts), BENCH_TOKEN_RPS (3000: the
 * req/s the token scenario's batches of codes are sized for),
 * BENCH_DATABASE_URL / DATABASE_URL (admin connection; see bench/database.ts),
 * BENCH_LOG_LINES_PER_SECOND (200: the log fan-out scenario's write rate, bench/log-fanout.ts),
 * BENCH_BACKUP_MB (256) and BENCH_BACKUP_ROUNDS (3): the backup download scenario's archive size and
 * rounds (bench/backup-download.ts).
 *
 * After them, the MCP read tool's row runs again on an app with MCP_AUDIT_READS=refused (its
 * successful calls not recorded), labelled so: the audit record's cost, same run.
 *
 * Logging: the app's main rows run it with `npm start`'s default logging (LOG_LEVEL info: one
 * access line per request, JSON to the child's stdout, a pipe read by a process that drops it). BENCH_LOG_LEVEL runs
 * them at another level and labels them `[LOG_LEVEL=...]`; BENCH_SILENT_ROWS=1 adds, after the
 * main rows, a second set with logging off, labelled `[LOG_LEVEL=silent]`.
 */
import autocannon, { type Options } from 'autocannon'
import { createBenchDatabase, provideServer, type BenchDatabase, type DatabaseServer } from './database.ts'
import { startServer, type RunningServer } from './child-process.ts'
import { failures, formatComparisons, formatTable, relate, toMeasurement, writeResults, type Measurement, type Run, type RunSettings } from './report.ts'
import { agentAccessToken } from './mcp-agent.ts'
import { prepareMetrics } from './metrics-samples.ts'
import { measureTokenExchange, tokenScenario } from './oauth-pair.ts'
import { LOG_FANOUT_SCENARIO, measureLogFanout } from './log-fanout.ts'
import { BACKUP_DOWNLOAD_SCENARIO, measureBackupDownload } from './backup-download.ts'
import { HOME_COMPANY, INSTANCES_COMPANY, MCP_READ_TOOL, appScenarioNames, appScenarios, baselineScenario, preflight, prepareTenant, signup, type Scenario } from './scenarios.ts'

const log = (line: string) => console.log(`# ${line}`)

function setting (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`)
  return value
}

const connections = setting('BENCH_CONNECTIONS', 100)
const durationSeconds = setting('BENCH_DURATION', 10)
const warmupSeconds = setting('BENCH_WARMUP', 2)
const poolMax = setting('BENCH_POOL_MAX', 10)
const tokenExpectedRps = setting('BENCH_TOKEN_RPS', 3000)
const only = process.env.BENCH_ONLY
const logLevel = process.env.BENCH_LOG_LEVEL === '' ? undefined : process.env.BENCH_LOG_LEVEL
const silentPass = process.env.BENCH_SILENT_ROWS === '1' && logLevel !== 'silent'
const selected = (name: string) => only === undefined || only.split(',').some((part) => name.includes(part))

/** One scenario's run, and the CPU time its server spent on the measured requests (the warm-up left out). */
async function measure (server: RunningServer, scenario: Scenario): Promise<Run> {
  await preflight(server.url, scenario)
  const warmup = warmupSeconds > 0 ? `${warmupSeconds} s warm-up, then ` : ''
  log(`${scenario.name}: ${warmup}${durationSeconds} s at ${connections} connections`)
  const options: Options = {
    url: `${server.url}${scenario.path}`,
    method: scenario.method,
    headers: scenario.headers,
    connections,
    duration: durationSeconds
  }
  if (scenario.body !== undefined) options.body = scenario.body
  if (warmupSeconds > 0) await autocannon({ ...options, duration: warmupSeconds })
  const cpuBefore = await server.call<number>('cpuMicros', null)
  const result = await autocannon(options)
  const cpuMicros = await server.call<number>('cpuMicros', null) - cpuBefore
  return { result, cpuMicros }
}

// --- cleanup, also on Ctrl-C ---------------------------------------------------
let dbServer: DatabaseServer | undefined
let database: BenchDatabase | undefined
const running = new Set<RunningServer>()
let cleaning: Promise<void> | undefined

function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    for (const server of running) await server.stop().catch((error: unknown) => console.error(error))
    if (database !== undefined) await database.drop().catch((error: unknown) => console.error('could not drop the bench database:', error))
    if (dbServer !== undefined) await dbServer.stop().catch((error: unknown) => console.error(error))
  })()
  return cleaning
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`)
    void cleanup().finally(() => process.exit(130))
  })
}

async function withServer<T> (file: string, env: Record<string, string>, use: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(new URL(file, import.meta.url), env)
  running.add(server)
  try {
    return await use(server)
  } finally {
    await server.stop()
    running.delete(server)
  }
}

// Both servers stay up, and the baseline runs before the first scenario and after
// each one: a scenario's ratio is against the mean of the baseline runs on either
// side of it. This machine's speed drifts by a quarter over minutes; a scenario
// measured between two baseline runs is compared with what the machine did then.
async function measureAppScenarios (childEnv: Record<string, string>, label = '', only: (name: string) => boolean = selected): Promise<Measurement[]> {
  if (!appScenarioNames().some(only)) return []
  const labelled = (scenario: Scenario): Scenario => label === ''
    ? scenario
    : { ...scenario, name: `${scenario.name} ${label}`, ...(scenario.versus === undefined ? {} : { versus: `${scenario.versus} ${label}` }) }
  // The auth server issues the MCP scenario's access token; the app checks it against its JWKS.
  return withServer('./oauth-ours-server.ts', childEnv, async (auth) => withServer('./app-server.ts', { ...childEnv, BENCH_AUTH_PORT: new URL(auth.url).port }, async (app) => {
    const session = await signup(app.url)
    const home = await signup(app.url)
    await prepareTenant(database!.url, home, HOME_COMPANY)
    const tenant = {
      instanceId: await prepareTenant(database!.url, session, INSTANCES_COMPANY),
      agentToken: await agentAccessToken(auth, session.user.id),
      homeToken: home.token
    }
    await prepareMetrics(database!.url, session.user.tenant_id, tenant.instanceId)
    return withServer('./baseline-server.ts', childEnv, async (bare) => {
      const reference = baselineScenario(bare.ready.token ?? '')
      const baselineRun = async (when: string) =>
        toMeasurement('baseline', { ...reference, name: `${reference.name} (${when}${label === '' || when.endsWith(label) ? '' : ` ${label}`})` }, await measure(bare, reference))
      let before = await baselineRun('first')
      const results: Measurement[] = [before]
      for (const scenario of appScenarios(session, tenant).filter((s) => only(s.name)).map(labelled)) {
        const result = await measure(app, scenario)
        const after = await baselineRun(`after ${scenario.name}`)
        const mean = (before.requestsPerSecond + after.requestsPerSecond) / 2
        const cpu = (before.cpuMsPer1000 + after.cpuMsPer1000) / 2
        results.push(toMeasurement('ours', scenario, result, { name: reference.name, requestsPerSecond: mean, cpuMsPer1000: cpu }), after)
        before = after
      }
      return results
    })
  }))
}

async function measureTokenScenario (childEnv: Record<string, string>): Promise<Measurement[]> {
  if (!selected(tokenScenario.name)) return []
  return measureTokenExchange({
    withServer,
    childEnv,
    databaseUrl: database!.url,
    settings: { connections, durationSeconds, warmupSeconds },
    expectedRps: tokenExpectedRps,
    log
  })
}

async function measureLogFanoutScenario (childEnv: Record<string, string>): Promise<Measurement[]> {
  if (!selected(LOG_FANOUT_SCENARIO)) return []
  return withServer('./log-fanout-server.ts', childEnv, async (server) => [await measureLogFanout(server, {
    clients: connections, durationSeconds, linesPerSecond: setting('BENCH_LOG_LINES_PER_SECOND', 200)
  }, log)])
}

async function measureBackupDownloadScenario (childEnv: Record<string, string>): Promise<Measurement[]> {
  if (!selected(BACKUP_DOWNLOAD_SCENARIO)) return []
  return withServer('./backup-download-server.ts', { ...childEnv, BENCH_BACKUP_MB: String(setting('BENCH_BACKUP_MB', 256)) }, async (server) =>
    measureBackupDownload(server, setting('BENCH_BACKUP_ROUNDS', 3), log))
}

// --- the run -------------------------------------------------------------------
let exitCode = 1
try {
  dbServer = await provideServer(log)
  database = await createBenchDatabase(dbServer.adminUrl)
  log(`${dbServer.description}, database ${database.name} (migrated)`)
  const childEnv = { BENCH_CHILD_DATABASE_URL: database.url, BENCH_POOL_MAX: String(poolMax) }

  // The main rows: the app logging as `npm start` does by default (or at BENCH_LOG_LEVEL, which then labels them).
  const mainLabel = logLevel === undefined ? '' : `[LOG_LEVEL=${logLevel}]`
  const mainRows = await measureAppScenarios(childEnv, mainLabel)
  const silentRows = silentPass ? await measureAppScenarios({ ...childEnv, BENCH_LOG_LEVEL: 'silent' }, '[LOG_LEVEL=silent]') : []
  // What recording a tool call costs: the read tool again, its successful calls not recorded (MCP_AUDIT_READS=refused).
  const unrecordedRows = await measureAppScenarios({ ...childEnv, BENCH_MCP_AUDIT_READS: 'refused' }, '[MCP_AUDIT_READS=refused]',
    (name) => name === MCP_READ_TOOL && selected(name))
  // Its comparison line: against the recorded calls' row of the main set, not the REST route.
  for (const row of unrecordedRows) if (row.server === 'ours') row.versus = { name: MCP_READ_TOOL, ratio: null }
  const measurements = relate([...mainRows, ...silentRows, ...unrecordedRows, ...await measureTokenScenario(childEnv), ...await measureLogFanoutScenario(childEnv), ...await measureBackupDownloadScenario(childEnv)])
  if (measurements.length === 0) throw new Error(`BENCH_ONLY="${only}" matches no scenario`)
  const settings: RunSettings = { connections, durationSeconds, warmupSeconds, poolMax, database: dbServer.description, tokenExpectedRps }
  const resultsFile = new URL('./results/latest.json', import.meta.url)
  await writeResults(resultsFile, settings, measurements)

  console.log(`\n${formatTable(measurements)}\n`)
  for (const line of formatComparisons(measurements)) log(line)
  log(`results written to ${resultsFile.pathname}`)
  const failed = measurements.filter((m) => failures(m) > 0)
  for (const m of failed) {
    console.error(`FAILED ${m.name}: ${m.errors} errors (${m.timeouts} timeouts), ${m.non2xx} non-2xx, status codes ${JSON.stringify(m.statusCodes)}`)
  }
  exitCode = failed.length === 0 ? 0 : 1
} catch (error) {
  console.error(error)
} finally {
  await cleanup()
}
process.exit(exitCode)
