// The subset of autocannon 9's programmatic API that bench/run.ts uses
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

  function autocannon (options: Options): Promise<Result>
  export default autocannon
  export type { Options, Result, Histogram }
}
