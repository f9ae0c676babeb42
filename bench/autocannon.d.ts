// The subset of autocannon 9's programmatic API that bench/run.ts and bench/soak.ts use
// (see node_modules/autocannon/README.md, "Results"); the package ships no types.
declare module 'autocannon' {
  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p90: number
    p99: number
  }

  interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections?: number
    duration?: number
    warmup?: { duration?: number, connections?: number }
    timeout?: number
    /** Each connection sends these in turn, over and over (bench/soak.ts). */
    requests?: Request[]
  }

  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    /** Returns the request to send (e.g. with a fresh body); called before each send. */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request
    /** Sees each answer; `context` is the connection's own, kept across its requests. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }

  interface Result {
    url: string
    duration: number
    /** Per-second samples; `total` is the number of completed requests. */
    requests: Histogram & { total: number, sent: number }
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
  }

  /** Thenable; `stop()` ends the run early (the result still resolves). */
  function autocannon (options: Options): Promise<Result> & { stop: () => void }
  export default autocannon
  export type { Options, Request, Result, Histogram }
}
