/**
 * Fault injection: the next request(s) matching a method and path answer a given status
 * (429 with Retry-After, 500, 503, 504 …) with the Status body the real server sends, and
 * are not processed. Faults are consumed in the order they were added.
 */
import { failure, type KubeError } from './status.ts'

export interface Fault {
  /** GET, POST, PUT, PATCH, DELETE; any method when omitted. */
  method?: string
  /** A RegExp tested against the path (no query string), or a string the path must contain. */
  path: string | RegExp
  status: number
  /** How many matching requests fail (default 1). */
  times?: number
  /** For 429 (and 503): the Retry-After header and details.retryAfterSeconds (default 1). */
  retryAfterSeconds?: number
  message?: string
}

const DEFAULT_MESSAGES: Record<number, string> = {
  429: 'Too many requests, please try again later.',
  500: 'Internal error occurred: injected by the fake kube-apiserver',
  503: 'The server is currently unable to handle the request',
  504: 'The server was unable to return a response in the time allotted, but may still be processing the request'
}

export class FaultInjector {
  #pending: Array<Fault & { left: number }> = []

  add (fault: Fault): void {
    if (!Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599) throw new Error(`fake kube-apiserver: a fault needs a 4xx/5xx status, not ${fault.status}`)
    this.#pending.push({ ...fault, left: fault.times ?? 1 })
  }

  pending (): number {
    return this.#pending.reduce((sum, f) => sum + f.left, 0)
  }

  clear (): void {
    this.#pending = []
  }

  /** The error to answer instead of processing the request, if a fault matches (consuming it). */
  take (method: string, path: string): KubeError | undefined {
    const fault = this.#pending.find((f) => (f.method === undefined || f.method.toUpperCase() === method) && (typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path)))
    if (fault === undefined) return undefined
    fault.left--
    if (fault.left <= 0) this.#pending.splice(this.#pending.indexOf(fault), 1)
    const retry = fault.status === 429 || fault.status === 503 ? fault.retryAfterSeconds ?? 1 : undefined
    const error = failure(fault.status, fault.message ?? DEFAULT_MESSAGES[fault.status] ?? `injected fault ${fault.status}`, retry === undefined ? undefined : { retryAfterSeconds: retry })
    if (retry !== undefined) error.headers['Retry-After'] = String(retry)
    return error
  }
}
