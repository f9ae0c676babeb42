import type { FastifyBaseLogger } from 'fastify'
import { Gauge } from 'prom-client'
import type pg from 'pg'
import type { ServiceMetrics } from './service-metrics.ts'

/** Times every attempt of a queue's jobs and counts it by outcome: a throw is a failed attempt. */
export function timedJob<A extends unknown[]> (metrics: ServiceMetrics, queue: string, handler: (...args: A) => Promise<unknown>): (...args: A) => Promise<unknown> {
  return async (...args) => {
    const stop = metrics.jobDuration.startTimer({ queue })
    let outcome = 'failed'
    try {
      const result = await handler(...args)
      outcome = 'completed'
      return result
    } finally {
      stop({ outcome })
      metrics.jobs.inc({ queue, outcome })
    }
  }
}

interface QueueRow { name: string, ready: number, deferred: number, active: number, oldest_age: number | null }

/*
 * Waiting jobs are counted live on pg-boss's own partial index of waiting jobs
 * (job_i11: state < 'active' AND NOT blocked), so a scrape costs one index scan
 * of the backlog, not of the retained history. Jobs in flight come from the
 * counters pg-boss keeps on its queue table (refreshed every supervision pass).
 */
const QUEUE_STATS = `
SELECT q.name,
       coalesce(w.ready, 0)::int AS ready,
       coalesce(w.deferred, 0)::int AS deferred,
       q.active_count::int AS active,
       w.oldest_age
  FROM pgboss.queue q
  LEFT JOIN (
    SELECT name,
           count(*) FILTER (WHERE start_after <= now()) AS ready,
           count(*) FILTER (WHERE start_after > now()) AS deferred,
           extract(epoch FROM now() - min(created_on) FILTER (WHERE start_after <= now()))::float8 AS oldest_age
      FROM pgboss.job
     WHERE name = ANY($1) AND state < 'active' AND NOT blocked
     GROUP BY name
  ) w ON w.name = q.name
 WHERE q.name = ANY($1)`

/**
 * Queue depth (ready, deferred, active) and the age of the oldest ready job, per
 * queue this service defines, read when Prometheus scrapes. A database that does
 * not answer leaves the gauges empty for that scrape rather than failing it.
 */
export function addQueueGauges (metrics: ServiceMetrics, options: { pool: pg.Pool, queues: () => string[], log: FastifyBaseLogger }): void {
  // Prometheus collects every gauge of a scrape at once: the two gauges share the one query in flight.
  let reading: Promise<QueueRow[]> | undefined
  const read = () => {
    reading ??= options.pool.query<QueueRow>(QUEUE_STATS, [options.queues()])
      .then((result) => result.rows)
      .finally(() => { reading = undefined })
    return reading
  }
  const rowsOrNone = async () => {
    try {
      return await read()
    } catch (error) {
      options.log.warn({ err: error }, 'Job queue metrics could not be read')
      return undefined
    }
  }

  // oxlint-disable-next-line no-new -- prom-client registers a gauge with the registries it names
  new Gauge({
    name: 'erp_portal_job_queue_depth',
    help: 'Jobs per queue: ready (waiting and due), deferred (waiting for a later start or retry), active (in flight, as of the last supervision pass).',
    labelNames: ['queue', 'state'] as const,
    registers: [metrics.registry],
    async collect () {
      const rows = await rowsOrNone()
      this.reset()
      for (const row of rows ?? []) {
        this.set({ queue: row.name, state: 'ready' }, row.ready)
        this.set({ queue: row.name, state: 'deferred' }, row.deferred)
        this.set({ queue: row.name, state: 'active' }, row.active)
      }
    }
  })
  // oxlint-disable-next-line no-new -- prom-client registers a gauge with the registries it names
  new Gauge({
    name: 'erp_portal_job_queue_oldest_ready_age_seconds',
    help: 'Age of the oldest job waiting that is due to run, per queue (0 when none waits).',
    labelNames: ['queue'] as const,
    registers: [metrics.registry],
    async collect () {
      const rows = await rowsOrNone()
      this.reset()
      for (const row of rows ?? []) this.set({ queue: row.name }, row.oldest_age ?? 0)
    }
  })
}
