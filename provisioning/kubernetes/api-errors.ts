/**
 * What a failed API call means. client-node 2.x throws an ApiException whose `body`
 * is the raw response text for status codes its OpenAPI spec does not list (404, 409,
 * 422, 429, 5xx …) and `undefined` for 401: the Status has to be parsed out of it.
 */
import { ApiException, type V1Status } from '@kubernetes/client-node'
import { BackendUnavailableError } from '../backend.ts'

/** The API answered with an error that retrying will not fix (404, 409, 422, 403 over quota …). */
export class KubernetesApiError extends Error {
  override name = 'KubernetesApiError'
  /** The HTTP status code. */
  readonly code: number
  /** The Status `reason`: NotFound, AlreadyExists, Conflict, Invalid, Forbidden … */
  readonly reason: string | undefined
  readonly status: V1Status | undefined
  constructor (message: string, code: number, status: V1Status | undefined, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.reason = status?.reason
    this.status = status
  }
}

export class CallTimeoutError extends Error {
  override name = 'CallTimeoutError'
  constructor (ms: number) {
    super(`no answer within ${ms} ms`)
  }
}

export function statusOf (error: ApiException<unknown>): V1Status | undefined {
  const body = error.body
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body)
      return typeof parsed === 'object' && parsed !== null ? parsed as V1Status : undefined
    } catch {
      return undefined
    }
  }
  return typeof body === 'object' && body !== null ? body as V1Status : undefined
}

export type Failure =
  | { kind: 'status', code: number, status: V1Status | undefined, retryAfterMs: number | undefined }
  | { kind: 'timeout' }
  | { kind: 'network' }
  | { kind: 'other' }

function retryAfterMs (headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after']
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

function isNetworkError (error: unknown): boolean {
  if (error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated')) return true
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code
  return typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)
}

export function classify (error: unknown): Failure {
  if (error instanceof ApiException) {
    return { kind: 'status', code: error.code, status: statusOf(error), retryAfterMs: retryAfterMs(error.headers) }
  }
  if (error instanceof CallTimeoutError) return { kind: 'timeout' }
  return isNetworkError(error) ? { kind: 'network' } : { kind: 'other' }
}

/** 429 and 5xx answers and broken connections are worth another attempt; a timeout is not (the call is bounded). */
export function isRetryable (failure: Failure): boolean {
  if (failure.kind === 'status') return failure.code === 429 || failure.code >= 500
  return failure.kind === 'network'
}

const describe = (error: unknown): string => {
  const cause = (error as { cause?: { message?: unknown } }).cause?.message
  const message = error instanceof Error ? error.message : String(error)
  return typeof cause === 'string' && cause !== '' ? `${message} (${cause})` : message
}

/**
 * The error a caller sees once retries are spent: BackendUnavailableError when the
 * API could not be used at all (unreachable, too slow, failing, credentials refused),
 * KubernetesApiError with the Status message for an answer about the request itself.
 */
export function finalError (what: string, failure: Failure, error: unknown, server: string): Error {
  const unavailable = (detail: string, hint: string): BackendUnavailableError =>
    new BackendUnavailableError('kubernetes', `${what}: ${detail}`, hint, { cause: error })
  switch (failure.kind) {
    case 'timeout':
      return unavailable(describe(error), `the Kubernetes API at ${server} is too slow or unreachable: check the cluster address in the kubeconfig and the network`)
    case 'network':
      return unavailable(describe(error), `cannot connect to the Kubernetes API at ${server}: check KUBECONFIG (or the in-cluster service account) and the network`)
    case 'other':
      return unavailable(describe(error), 'the Kubernetes client could not make the request: check the kubeconfig (context, cluster, credentials)')
    case 'status': {
      const text = failure.status?.message ?? (failure.code === 401 ? 'Unauthorized' : `HTTP ${failure.code}`)
      if (failure.code === 401) return unavailable(`${text} (401)`, 'the Kubernetes API refused the credentials: check the token or client certificate in the kubeconfig')
      if (isRetryable(failure)) return unavailable(`${text} (${failure.code})`, 'the Kubernetes API is failing or overloaded: try again later')
      return new KubernetesApiError(`${what}: ${text}`, failure.code, failure.status, { cause: error })
    }
  }
}

export const isNotFound = (error: unknown): boolean => error instanceof KubernetesApiError && error.code === 404
