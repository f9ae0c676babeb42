import type { FastifyBaseLogger } from 'fastify'
import { Gauge } from 'prom-client'
import type { Sql } from '../../../lib/sql.ts'
import type { ServiceMetrics } from '../../../lib/metrics/service-metrics.ts'

/** Instances by lifecycle state and backend, counted across all tenants when Prometheus scrapes. */
export function addInstanceGauge (metrics: ServiceMetrics, { sql, log }: { sql: Sql, log: FastifyBaseLogger }): void {
  // oxlint-disable-next-line no-new -- prom-client registers a gauge with the registries it names
  new Gauge({
    name: 'erp_portal_instances',
    help: 'Instances by lifecycle state and backend (all companies).',
    labelNames: ['state', 'backend'] as const,
    registers: [metrics.registry],
    async collect () {
      try {
        const rows = await sql<{ state: string, backend: string, count: number }>({
          name: 'metrics-instances-by-state',
          text: 'SELECT state, backend, count(*)::int AS count FROM instances GROUP BY state, backend',
          values: []
        })
        this.reset()
        for (const row of rows) this.set({ state: row.state, backend: row.backend }, row.count)
      } catch (error) {
        this.reset()
        log.warn({ err: error }, 'Instance metrics could not be read')
      }
    }
  })
}
