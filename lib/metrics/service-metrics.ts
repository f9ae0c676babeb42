import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'

/** The label of a request that matched no route: raw URLs never become labels. */
export const UNMATCHED_ROUTE = '(unmatched)'

/**
 * The service's own Prometheus metrics, one registry per app (tests build many
 * apps in one process; prom-client's global registry would mix them). Rooms add
 * their own collect-on-scrape gauges to `registry` (jobs, instances).
 * Every label comes from a closed set: route patterns, queue names, states,
 * backend and operation names, limit names, outcomes.
 */
export function createServiceMetrics () {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return {
    registry,
    httpDuration: new Histogram({
      name: 'erp_portal_http_request_duration_seconds',
      help: 'Time to answer a request, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry]
    }),
    jobs: new Counter({
      name: 'erp_portal_jobs_total',
      help: 'Job attempts run by this process, by queue and outcome (completed, or failed: retried or given up).',
      labelNames: ['queue', 'outcome'] as const,
      registers: [registry]
    }),
    jobDuration: new Histogram({
      name: 'erp_portal_job_duration_seconds',
      help: 'Duration of job attempts run by this process, by queue and outcome.',
      labelNames: ['queue', 'outcome'] as const,
      buckets: [0.05, 0.25, 1, 5, 15, 30, 60, 120, 300, 600],
      registers: [registry]
    }),
    backendCallErrors: new Counter({
      name: 'erp_portal_backend_call_errors_total',
      help: 'Calls to an instance backend (Docker engine, Kubernetes API) that failed, by backend and operation.',
      labelNames: ['backend', 'operation'] as const,
      registers: [registry]
    }),
    rateLimitRefusals: new Counter({
      name: 'erp_portal_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate limit, by limit name.',
      labelNames: ['limit'] as const,
      registers: [registry]
    })
  }
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>
