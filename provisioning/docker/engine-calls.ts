/** Bounded Docker engine calls with errors that say which call on which container failed. */
import type Docker from 'dockerode'
import { BackendUnavailableError } from '../backend.ts'

export const DOCKER_HINT = 'start the Docker engine, or set DOCKER_HOST to where it listens (e.g. unix:///var/run/docker.sock or tcp://host:2376)'

/** The engine answered, but not as hoped; `statusCode` is the engine's HTTP status (404, 409, …). */
export class DockerEngineError extends Error {
  override name = 'DockerEngineError'
  readonly call: string
  readonly target: string
  readonly statusCode: number | undefined
  constructor (call: string, target: string, message: string, statusCode: number | undefined, options?: { cause?: unknown }) {
    super(message, options)
    this.call = call
    this.target = target
    this.statusCode = statusCode
  }
}

// Socket-level failures: the engine is not there (or not reachable), not a refusal.
const UNREACHABLE = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])

export function statusOf (error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode
  return typeof status === 'number' ? status : undefined
}

export function describeEndpoint (docker: Docker): string {
  const modem = docker.modem as { socketPath?: unknown, host?: unknown, port?: unknown, protocol?: unknown }
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`
  if (typeof modem.host === 'string') return `${String(modem.protocol ?? 'http')}://${modem.host}:${String(modem.port)}`
  return 'the default socket'
}

export type EngineCall = <T>(call: string, target: string, run: (signal: AbortSignal) => Promise<T>, timeoutMs?: number) => Promise<T>

/**
 * `run` gets an AbortSignal that fires after timeoutMs. A timeout or a socket
 * error is BackendUnavailableError; an engine refusal is DockerEngineError with
 * its statusCode, which callers test for the codes they expect (304, 404, 409).
 */
export function createEngineCall (docker: Docker, defaultTimeoutMs: number): EngineCall {
  const endpoint = describeEndpoint(docker)
  return async (call, target, run, timeoutMs = defaultTimeoutMs) => {
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      return await run(signal)
    } catch (error) {
      const err = error as { name?: string, code?: string, message?: string, json?: { message?: unknown } }
      if (signal.aborted || err.name === 'AbortError' || err.name === 'TimeoutError') {
        throw new BackendUnavailableError('docker', `The Docker engine at ${endpoint} did not answer ${call} ${target} within ${timeoutMs} ms`, DOCKER_HINT, { cause: error })
      }
      if (err.code !== undefined && UNREACHABLE.has(err.code)) {
        throw new BackendUnavailableError('docker', `The Docker engine does not answer at ${endpoint} (${err.code} during ${call} ${target})`, DOCKER_HINT, { cause: error })
      }
      const status = statusOf(error)
      const why = typeof err.json?.message === 'string' ? err.json.message : (err.message ?? String(error))
      throw new DockerEngineError(call, target, `docker ${call} ${target} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${why.trim()}`, status, { cause: error })
    }
  }
}
