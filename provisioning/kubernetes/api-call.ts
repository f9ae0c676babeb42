/**
 * Every API request goes through here: bounded by a timeout (client-node 2.x has no
 * timeout option; a middleware hands fetch an AbortSignal, and a timer bounds the
 * whole call, authentication included), retried with exponential backoff and jitter
 * after 429, 5xx and connection errors (honouring Retry-After), never after other 4xx.
 */
import { Observable, type ConfigurationOptions, type ObservableMiddleware } from '@kubernetes/client-node'
import { CallTimeoutError, classify, finalError, isRetryable, type Failure } from './api-errors.ts'

export interface CallPolicy {
  timeoutMs: number
  retries: number
}

export interface CallerSettings extends CallPolicy {
  retryBaseMs: number
  maxRetryDelayMs: number
  /** The API server URL, for error hints. */
  server: string
}

/** `send` gets the options to pass as the generated method's last argument. */
export type ApiCaller = <T>(what: string, send: (options: ConfigurationOptions) => Promise<T>, policy?: Partial<CallPolicy>) => Promise<T>

function signalMiddleware (signal: AbortSignal): ObservableMiddleware {
  return {
    pre: (context) => {
      context.setSignal(signal)
      return new Observable(Promise.resolve(context))
    },
    post: (response) => new Observable(Promise.resolve(response))
  }
}

async function attempt<T> (send: (options: ConfigurationOptions) => Promise<T>, timeoutMs: number): Promise<T> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new CallTimeoutError(timeoutMs)
      reject(error)
      controller.abort(error)
    }, timeoutMs)
  })
  try {
    // 'append' keeps the client's own middleware (User-Agent); the default strategy replaces it.
    return await Promise.race([send({ middleware: [signalMiddleware(controller.signal)], middlewareMergeStrategy: 'append' }), expired])
  } finally {
    clearTimeout(timer)
  }
}

export function backoffMs (attemptNumber: number, failure: Failure, settings: Pick<CallerSettings, 'retryBaseMs' | 'maxRetryDelayMs'>, random = Math.random): number {
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, settings.maxRetryDelayMs)
  const ceiling = Math.min(settings.maxRetryDelayMs, settings.retryBaseMs * 2 ** attemptNumber)
  return Math.round(ceiling * (0.5 + random() / 2))
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export function createApiCaller (settings: CallerSettings): ApiCaller {
  return async function call<T> (what: string, send: (options: ConfigurationOptions) => Promise<T>, policy: Partial<CallPolicy> = {}): Promise<T> {
    const timeoutMs = policy.timeoutMs ?? settings.timeoutMs
    const retries = policy.retries ?? settings.retries
    for (let n = 0; ; n++) {
      try {
        return await attempt(send, timeoutMs)
      } catch (error) {
        const failure = classify(error)
        if (n >= retries || !isRetryable(failure)) throw finalError(what, failure, error, settings.server)
        await sleep(backoffMs(n, failure, settings))
      }
    }
  }
}
