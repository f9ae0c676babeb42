import fp from 'fastify-plugin'
import { createServiceMetrics, UNMATCHED_ROUTE, type ServiceMetrics } from '../../lib/metrics/service-metrics.ts'
import { listenForScrapes } from '../../lib/metrics/scrape.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's Prometheus metrics (prom-client), served at /metrics (routes/metrics.ts) or on METRICS_PORT. */
    serviceMetrics: ServiceMetrics
  }
}

/**
 * Prometheus metrics of the service itself. Every answered request is timed by
 * its route pattern (`/api/instances/:id`, never the URL) and status; a request
 * no route matched counts under one fixed label. With METRICS_PORT, scrapes go
 * to a listener of their own on that port.
 */
export default fp(async (fastify) => {
  const metrics = createServiceMetrics()
  fastify.decorate('serviceMetrics', metrics)

  // A callback hook, not an async one: no promise per request (about 1 µs in all).
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe({
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      status_code: reply.statusCode
    }, reply.elapsedTime / 1000)
    done()
  })

  const { METRICS_PORT, METRICS_TOKEN, HOST } = fastify.config
  if (METRICS_PORT !== undefined) {
    let listener: Awaited<ReturnType<typeof listenForScrapes>> | undefined
    fastify.addHook('onReady', async () => {
      listener = await listenForScrapes(metrics.registry, { port: METRICS_PORT, host: HOST, token: METRICS_TOKEN })
      fastify.log.info({ addresses: listener.addresses }, 'metrics listener ready')
    })
    fastify.addHook('onClose', async () => { await listener?.close() })
  }
}, { name: 'prometheus', dependencies: ['env'] })
