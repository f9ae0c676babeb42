import fp from 'fastify-plugin'
import { createMetricsRetention, METRICS_RETENTION_JOB, RETENTION_INTERVAL_SECONDS, type RetentionResult } from './metrics-retention.ts'
import { createMetricsSampler, METRICS_SAMPLER_JOB, type SamplerResult } from './metrics-sampler.ts'
import { createMetricsService, type MetricsService } from './metrics.service.ts'
import { createUsageReader } from './usage-reading.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: MetricsService & {
      /** One sampler pass now, as the scheduled one does. */
      sampleNow: () => Promise<SamplerResult>
      /** One roll-up and pruning pass now. */
      retainNow: () => Promise<RetentionResult>
    }
  }
}

/**
 * Instance metrics: the current usage (a recent sample, or a live reading bounded by a timeout),
 * the history from samples and hourly roll-ups, the sampler job and the retention job.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const reader = createUsageReader({ sql: fastify.sql, backends: fastify.instances.backends, databases: fastify.instances.databases })
  const log = fastify.log.child({ component: 'metrics' })
  const service = createMetricsService({ reader, intervalSeconds: config.METRICS_INTERVAL_SECONDS, log })
  const sampler = fastify.jobs.every(METRICS_SAMPLER_JOB, config.METRICS_INTERVAL_SECONDS, createMetricsSampler({
    sql: fastify.sql,
    reader,
    intervalSeconds: config.METRICS_INTERVAL_SECONDS,
    concurrency: config.METRICS_CONCURRENCY,
    log
  }))
  const retention = fastify.jobs.every(METRICS_RETENTION_JOB, RETENTION_INTERVAL_SECONDS, createMetricsRetention({
    sql: fastify.sql,
    rawDays: config.METRICS_RAW_RETENTION_DAYS,
    hourlyDays: config.METRICS_HOURLY_RETENTION_DAYS
  }))
  fastify.decorate('metrics', { ...service, sampleNow: sampler.runNow, retainNow: retention.runNow })
}, { name: 'metrics', dependencies: ['env', 'orm', 'jobs', 'instances'] })
