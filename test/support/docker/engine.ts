/**
 * Helpers for tests that drive the REAL Docker engine through dockerode.
 *
 *   import t from 'tap'
 *   import { requireDockerOrSkipLoudly, testImage, newTestRun, cleanupContainers } from '../support/docker/engine.ts'
 *
 *   const engine = await requireDockerOrSkipLoudly(t)
 *   const run = newTestRun()                       // labels every container this file creates
 *   t.teardown(() => engine.available ? cleanupContainers(run.label) : undefined)
 *   engine.test('creates an instance', async (t) => {
 *     const image = await testImage()              // $ERP_TEST_IMAGE, else built once per process
 *     const container = await engine.docker.createContainer({ Image: image, Labels: run.labels })
 *     …
 *   })
 *
 * Register docker tests with `engine.test`, not `t.test`: without an engine they are then
 * reported as skipped (or, with DOCKER_TESTS=required, the file fails) and counted in the
 * "# DOCKER ENGINE NOT AVAILABLE: <n> docker tests did not run" line.
 *
 * The test image (test/support/docker/build-test-image.sh, whose header says what it does) stands
 * in for `odoo:{version}`: busybox nc + sh serving the part of Odoo the service relies on, its
 * state in the PostgreSQL database (psql), on $HTTP_PORT (default 8069), printing
 * TEST_IMAGE_START_LINE to stdout and exiting 0 on SIGTERM. testImage() also starts the relay
 * that lets containers reach a loopback-only test database (database-relay.ts).
 */
import { randomBytes } from 'node:crypto'
import Docker from 'dockerode'
import type { Test, TestOpts } from 'tap'
import { demuxFrames } from '../../../provisioning/docker/logs.ts'

export { BUILD_SCRIPT, DEFAULT_TEST_IMAGE, testImage, testImageWith } from './test-image.ts'
/** The port the test image's httpd listens on (the ERP's HTTP port) unless HTTP_PORT says otherwise. */
export const TEST_IMAGE_PORT = 8069
/** What the test image prints first: `${TEST_IMAGE_START_LINE} ${port}`. */
export const TEST_IMAGE_START_LINE = 'erp-test-image: starting httpd on port'
/** The label every container created by a test carries: `erp.test-run=<run id>`. */
export const TEST_RUN_LABEL = 'erp.test-run'

let client: Docker | undefined
/** The shared dockerode client: DOCKER_HOST when set, else the default socket (/var/run/docker.sock). */
export function dockerClient (): Docker {
  client ??= new Docker()
  return client
}

export type EngineProbe =
  | { available: true, version: string, apiVersion: string }
  | { available: false, reason: string }

/** Pings the engine (bounded by timeoutMs) and reads its version. Never throws. */
export async function probeDocker (timeoutMs = 3000): Promise<EngineProbe> {
  let where = process.env.DOCKER_HOST ?? 'the default socket (/var/run/docker.sock)'
  try {
    const docker = dockerClient()
    where = describeEndpoint(docker) ?? where
    const signal = AbortSignal.timeout(timeoutMs)
    // dockerode takes an abortSignal here; @types/dockerode does not say so.
    const api = docker as unknown as {
      ping: (opts: { abortSignal: AbortSignal }) => Promise<unknown>
      version: (opts: { abortSignal: AbortSignal }) => Promise<Docker.DockerVersion>
    }
    await api.ping({ abortSignal: signal })
    const version = await api.version({ abortSignal: signal })
    return { available: true, version: version.Version, apiVersion: version.ApiVersion }
  } catch (error) {
    const err = error as { name?: string, code?: string, message?: string }
    const why = err.name === 'TimeoutError' || err.name === 'AbortError'
      ? `no answer within ${timeoutMs} ms`
      : (err.code ?? err.message ?? String(error))
    return { available: false, reason: `cannot reach the Docker engine at ${where}: ${why}` }
  }
}

/** True when the engine answers a ping within timeoutMs. */
export async function dockerAvailable (timeoutMs = 3000): Promise<boolean> {
  return (await probeDocker(timeoutMs)).available
}

export type DockerTestFn = (t: Test) => unknown

export interface DockerTests {
  /** Whether the engine answered; when false, `test` registers skipped tests only. */
  readonly available: boolean
  /** Why it is not available (empty when it is). */
  readonly reason: string
  /** The dockerode client; only usable when available. */
  readonly docker: Docker
  /** t.test, or a skipped (counted) test when there is no engine. */
  test: (name: string, optsOrFn: TestOpts | DockerTestFn, fn?: DockerTestFn) => void
}

/**
 * Checks the engine once for this test file. When it answers, returns `test` = t.test.
 * When it does not:
 * - DOCKER_TESTS=required (CI): the file FAILS with a clear message, and its docker tests are
 *   reported as skipped;
 * - otherwise: its docker tests are skipped, and when t ends a loud
 *   "# DOCKER ENGINE NOT AVAILABLE: <n> docker tests did not run" line goes to stdout (the TAP
 *   stream) and stderr.
 */
export async function requireDockerOrSkipLoudly (t: Test, timeoutMs = 3000): Promise<DockerTests> {
  const probe = await probeDocker(timeoutMs)
  const docker = dockerClient()
  if (probe.available) {
    t.comment(`docker engine ${probe.version} (API ${probe.apiVersion})`)
    return {
      available: true,
      reason: '',
      docker,
      test: (name, optsOrFn, fn) => {
        if (typeof optsOrFn === 'function') t.test(name, optsOrFn)
        else t.test(name, optsOrFn, fn ?? (() => {}))
      }
    }
  }

  const required = process.env.DOCKER_TESTS === 'required'
  let skipped = 0
  if (required) {
    t.fail(`DOCKER_TESTS=required but the Docker engine is not available (${probe.reason}). ` +
      'Start dockerd (CI installs and starts it in .ci/run), or unset DOCKER_TESTS to skip these tests.')
  }
  t.teardown(() => {
    const line = `# DOCKER ENGINE NOT AVAILABLE: ${skipped} docker tests did not run` +
      `${required ? ' (DOCKER_TESTS=required: FAILED)' : ''} -- ${probe.reason}`
    console.log(line)
    console.error(`\n${'#'.repeat(100)}\n${line}\n${'#'.repeat(100)}\n`)
  })
  return {
    available: false,
    reason: probe.reason,
    docker,
    test: (name, optsOrFn) => {
      skipped++
      const opts = typeof optsOrFn === 'function' ? {} : optsOrFn
      t.test(name, { ...opts, skip: `DOCKER ENGINE NOT AVAILABLE (${probe.reason})` }, () => {})
    }
  }
}

export interface TestRun {
  /** Unique per call: `<TEST_RUN_ID or "dev">-<pid>-<random>`. */
  id: string
  /** `erp.test-run=<id>`, the filter for cleanupContainers. */
  label: string
  /** `{ 'erp.test-run': id }`, to spread into a container's Labels. */
  labels: Record<string, string>
}

/** A run id to label (and later clean up) the containers a test file creates. */
export function newTestRun (): TestRun {
  const id = `${process.env.TEST_RUN_ID ?? 'dev'}-${process.pid}-${randomBytes(3).toString('hex')}`
  return { id, label: `${TEST_RUN_LABEL}=${id}`, labels: { [TEST_RUN_LABEL]: id } }
}

/**
 * Removes (forcibly, with their anonymous volumes) every container, running or not, matching
 * a label filter such as `erp.test-run=<id>` (or just a label key). Returns their names.
 */
export async function cleanupContainers (labelFilter: string): Promise<string[]> {
  if (labelFilter.trim() === '') throw new Error('cleanupContainers needs a label filter, e.g. erp.test-run=<id>')
  const docker = dockerClient()
  const found = await docker.listContainers({ all: true, filters: { label: [labelFilter] } })
  const removed: string[] = []
  for (const info of found) {
    try {
      await docker.getContainer(info.Id).remove({ force: true, v: true })
      removed.push(info.Names[0]?.replace(/^\//, '') ?? info.Id)
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode
      if (status !== 404 && status !== 409) throw error // 404: already gone; 409: removal already under way
    }
  }
  return removed
}

export interface HttpAnswer { status: number, body: string, elapsedMs: number }

/**
 * Polls url until it answers with a 2xx (connection refused/reset while the server starts —
 * docker-proxy accepts before the container listens — count as not yet). Throws after
 * timeoutMs with the last status or error.
 */
export async function waitForHttp (url: string, timeoutMs: number, intervalMs = 50): Promise<HttpAnswer> {
  const started = Date.now()
  const deadline = started + timeoutMs
  let last = 'no attempt'
  while (true) {
    const remaining = deadline - Date.now()
    if (remaining <= 0) break
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(Math.min(remaining, 2000)) })
      const body = await response.text()
      if (response.ok) return { status: response.status, body, elapsedMs: Date.now() - started }
      last = `HTTP ${response.status}`
    } catch (error) {
      // An attempt cut short by the deadline itself says less than the answer before it.
      if (Date.now() >= deadline && last !== 'no attempt') break
      const err = error as { cause?: { code?: string, message?: string }, message?: string }
      last = err.cause?.code ?? err.cause?.message ?? err.message ?? String(error)
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(intervalMs, deadline - Date.now()))))
  }
  throw new Error(`${url} did not answer 2xx within ${timeoutMs} ms (last: ${last})`)
}

/** The host port Docker published containerPort on (e.g. a random one), from an inspect. */
export function publishedPort (info: Docker.ContainerInspectInfo, containerPort = TEST_IMAGE_PORT, protocol = 'tcp'): number {
  const binding = info.NetworkSettings.Ports?.[`${containerPort}/${protocol}`]?.[0]
  if (binding === undefined) throw new Error(`${info.Name}: ${containerPort}/${protocol} is not published (is it running?)`)
  return Number(binding.HostPort)
}

export interface Output { stdout: string, stderr: string }

/** A container's logs so far, split into stdout and stderr (non-TTY containers multiplex them). */
export async function containerLogs (container: Docker.Container): Promise<Output> {
  const data: unknown = await container.logs({ stdout: true, stderr: true, follow: false })
  return demux(Buffer.isBuffer(data) ? data : Buffer.from(String(data)))
}

/**
 * Runs a command in a running container; resolves with its exit code and output. As the image's
 * user unless `user` is given (`'0'`: root, like an operator's `docker exec -u 0`).
 */
export async function execIn (container: Docker.Container, cmd: string[], options: { user?: string } = {}): Promise<Output & { exitCode: number | null }> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, Tty: false, ...(options.user === undefined ? {} : { User: options.user }) })
  const stream = await exec.start({ hijack: true, stdin: false })
  const chunks: Buffer[] = []
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', resolve)
    stream.on('close', resolve)
    stream.on('error', reject)
  })
  const { ExitCode } = await exec.inspect()
  return { ...demux(Buffer.concat(chunks)), exitCode: ExitCode }
}

/** Splits Docker's multiplexed stream (8-byte frames: stream type, 0, 0, 0, uint32 BE length). */
export function demux (buffer: Buffer): Output {
  const { stdout, stderr } = demuxFrames(buffer)
  return { stdout, stderr }
}

function describeEndpoint (docker: Docker): string | undefined {
  const modem = docker.modem as { socketPath?: unknown, host?: unknown, port?: unknown }
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`
  if (typeof modem.host === 'string') return `${modem.host}:${String(modem.port)}`
  return undefined
}
