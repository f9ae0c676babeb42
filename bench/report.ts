/** Turns autocannon results into the printed table and bench/results/latest.json. */
import { mkdir, writeFile } from 'node:fs/promises'
import { arch, cpus, platform } from 'node:os'
import type { Result } from 'autocannon'
import type { Scenario } from './scenarios.ts'

export interface Measurement {
  server: 'baseline' | 'ours'
  name: string
  method: string
  path: string
  requestsPerSecond: number
  latencyP50Ms: number
  latencyP99Ms: number
  totalRequests: number
  errors: number
  timeouts: number
  non2xx: number
  statusCodes: Record<string, number>
  /** requests/s of this scenario divided by the baseline's; 1 for the baseline itself. */
  ratio: number
  /**
   * CPU time of the server's process per 1000 measured requests (ms), and the
   * baseline's over this one's (higher is better, like `ratio`). Less sensitive
   * than req/s to other load on the machine; the database's CPU is not in it.
   */
  cpuMsPer1000: number
  cpuRatio: number
  /** The baseline the ratio is against (one per family of scenarios). */
  comparedWith?: string
  /** Another scenario of the run this one is compared with, and req/s of this one over that one's. */
  versus?: { name: string, ratio: number | null }
}

/** A baseline as a ratio's reference: its name and the mean req/s of its runs around the scenario. */
export interface BaselineReference {
  name: string
  requestsPerSecond: number
  /** The mean CPU ms per 1000 requests of those runs (0: not measured). */
  cpuMsPer1000?: number
}

/** One autocannon run, and the CPU time (µs) its server's process spent on it (undefined: not measured). */
export interface Run {
  result: Result
  cpuMicros?: number
}

export interface RunSettings {
  connections: number
  durationSeconds: number
  warmupSeconds: number
  poolMax: number
  database: string
  /** Req/s the token scenario's batches of pre-minted codes were sized for (BENCH_TOKEN_RPS). */
  tokenExpectedRps: number
}

export function toMeasurement (server: Measurement['server'], scenario: Scenario, run: Run | Result, baseline?: BaselineReference): Measurement {
  const { result, cpuMicros } = 'result' in run ? run : { result: run, cpuMicros: undefined }
  const cpuMsPer1000 = cpuMicros === undefined || result.requests.total === 0 ? 0 : cpuMicros / result.requests.total
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count
  const requestsPerSecond = result.requests.average
  return {
    server,
    name: scenario.name,
    method: scenario.method,
    path: scenario.path,
    requestsPerSecond,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    totalRequests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    ratio: baseline === undefined || baseline.requestsPerSecond === 0 ? 1 : requestsPerSecond / baseline.requestsPerSecond,
    cpuMsPer1000,
    cpuRatio: baseline?.cpuMsPer1000 === undefined || baseline.cpuMsPer1000 === 0 || cpuMsPer1000 === 0 ? 1 : baseline.cpuMsPer1000 / cpuMsPer1000,
    ...(baseline === undefined ? {} : { comparedWith: baseline.name }),
    ...(scenario.versus === undefined ? {} : { versus: { name: scenario.versus, ratio: null } })
  }
}

/** Fills each `versus` ratio from the named scenario's run (null when that scenario was not run). */
export function relate (measurements: Measurement[]): Measurement[] {
  for (const measurement of measurements) {
    if (measurement.versus === undefined) continue
    const other = measurements.find((m) => m.server === 'ours' && m.name === measurement.versus?.name)
    measurement.versus.ratio = other === undefined || other.requestsPerSecond === 0 ? null : measurement.requestsPerSecond / other.requestsPerSecond
  }
  return measurements
}

/** One line per `versus` comparison, under the table. */
export function formatComparisons (measurements: Measurement[]): string[] {
  return measurements.filter((m) => m.versus !== undefined).map((m) =>
    `${m.name} vs ${m.versus!.name}: ${m.versus!.ratio === null ? 'not run' : m.versus!.ratio.toFixed(2)}`)
}

export function failures (measurement: Measurement): number {
  return measurement.errors + measurement.non2xx
}

export function formatTable (measurements: Measurement[]): string {
  const header = ['scenario', 'server', 'req/s (avg)', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'ratio vs baseline', 'CPU ms/1k req', 'CPU ratio']
  const rows = measurements.map((m) => [
    m.name,
    m.server,
    m.requestsPerSecond.toFixed(0),
    m.latencyP50Ms.toFixed(1),
    m.latencyP99Ms.toFixed(1),
    String(m.errors),
    String(m.non2xx),
    m.server === 'baseline' ? '-' : m.ratio.toFixed(2),
    m.cpuMsPer1000 === 0 ? '-' : m.cpuMsPer1000.toFixed(0),
    m.server === 'baseline' || m.cpuMsPer1000 === 0 ? '-' : m.cpuRatio.toFixed(2)
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: string[]) => cells.map((cell, column) =>
    column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)).join('  ')
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n')
}

export async function writeResults (file: URL, settings: RunSettings, measurements: Measurement[]): Promise<void> {
  await mkdir(new URL('.', file), { recursive: true })
  const cpu = cpus()
  const document = {
    date: new Date().toISOString(),
    node: process.versions.node,
    machine: { platform: platform(), arch: arch(), cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown' },
    settings,
    ok: measurements.every((m) => failures(m) === 0),
    measurements
  }
  await writeFile(file, JSON.stringify(document, null, 2) + '\n')
}
