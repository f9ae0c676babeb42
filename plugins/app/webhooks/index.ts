import { readFile } from 'node:fs/promises'
import fp from 'fastify-plugin'
import { parseAllowHosts, type OutboundPolicy } from '../../../lib/outbound-url.ts'
import { createDeliveryJob } from './webhook-delivery.job.ts'
import { WEBHOOK_DELIVERY_QUEUE } from './webhook-delivery.queue.ts'
import { createDeliveriesService, type DeliveriesService } from './webhook-deliveries.service.ts'
import { createEndpointDisabler } from './webhook-disable.ts'
import { createFanOut, FAN_OUT_BATCH } from './webhook-fanout.ts'
import { createEventRenderer } from './webhook-render.ts'
import { createWebhookSecretSealer } from './webhook-secret.ts'
import { createWebhooksService, type WebhooksService } from './webhooks.service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhooksService & {
      deliveries: DeliveriesService
      /** One fan-out pass now, in this process (the workers run one every WEBHOOK_FANOUT_MS). */
      fanOutNow: () => Promise<number>
    }
  }
}

/**
 * Signed webhooks. The activity recorder writes a `webhook_events` row in the transaction of
 * each change a webhook reports (webhook-event-writer.ts); every job worker fans new events out
 * to the subscribed endpoints (SKIP LOCKED: once across replicas), one delivery row and one
 * pg-boss job each; the `webhook-delivery` queue signs and POSTs them, retrying with backoff.
 */
export default fp(async (fastify) => {
  const { config, jobs } = fastify
  if (config.ERP_CREDENTIALS_KEY === undefined) throw new Error('ERP_CREDENTIALS_KEY must be resolved before the app is built')
  const sealer = createWebhookSecretSealer(config.ERP_CREDENTIALS_KEY)
  const policy: OutboundPolicy = {
    allowHosts: parseAllowHosts(config.WEBHOOK_ALLOWED_HOSTS),
    ...(config.WEBHOOK_CA_FILE === undefined ? {} : { extraCa: await readFile(config.WEBHOOK_CA_FILE, 'utf8') })
  }
  const log = fastify.log.child({ component: 'webhooks' })
  const root = () => fastify.orm.em.fork()
  const endpoints = createWebhooksService({ activity: fastify.activity, sealer, policy, graceMs: config.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000 })
  const deliveries = createDeliveriesService({ endpoints, jobs, retryHours: config.WEBHOOK_RETRY_HOURS })
  const endpointFailing = createEndpointDisabler({
    em: root, activity: fastify.activity, mail: fastify.mail, afterMs: config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000, baseUrl: config.BASE_URL
  })
  const deliver = createDeliveryJob({ sql: fastify.sql, sealer, policy, timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000, log, endpointFailing })
  // A finished delivery wakes the queue's worker, which then fetches the next job at once rather
  // than at its next poll: a backlog drains at the speed of the receivers, not one job per poll.
  await jobs.define(WEBHOOK_DELIVERY_QUEUE, async (job, jobLog) => {
    try {
      return await deliver(job, jobLog)
    } finally {
      setImmediate(() => { jobs.wake(WEBHOOK_DELIVERY_QUEUE) })
    }
  })
  const fanOut = createFanOut({ em: root, jobs, render: createEventRenderer(fastify), retryHours: config.WEBHOOK_RETRY_HOURS })

  fastify.decorate('webhooks', Object.assign(endpoints, { deliveries, fanOutNow: fanOut }))

  // Every worker process looks for new events; a pass that finds a full batch goes on at once.
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const loop = async (): Promise<void> => {
    let handed = 0
    try {
      handed = await fanOut()
    } catch (error) {
      if (!stopped) log.warn({ err: error }, 'Webhook fan-out pass failed; the next one runs as usual')
    }
    if (!stopped) timer = setTimeout(() => void loop(), handed >= FAN_OUT_BATCH ? 0 : config.WEBHOOK_FANOUT_MS).unref()
  }
  fastify.addHook('onReady', async () => {
    if (jobs.working) timer = setTimeout(() => void loop(), config.WEBHOOK_FANOUT_MS).unref()
  })
  fastify.addHook('preClose', async () => {
    stopped = true
    clearTimeout(timer)
  })
}, { name: 'webhooks', dependencies: ['env', 'orm', 'jobs', 'activity', 'mail', 'instances', 'addon-sources', 'tickets', 'subscriptions'] })
