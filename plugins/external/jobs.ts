import { setTimeout as sleep } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import type { EntityManager } from '@mikro-orm/postgresql'
import { fromKysely, PgBoss, type JobWithMetadata, type SendOptions } from 'pg-boss'
import type pg from 'pg'
import { cadenceOf } from '../../lib/cadence.ts'
import { addQueueGauges, timedJob } from '../../lib/metrics/job-metrics.ts'
import { carryRequestId, jobLogBindings, requestIdOf, runLogged, withRequestId } from '../../lib/job-log.ts'
import { JOBS_STOP_GRACE_MS } from '../../lib/shutdown-budget.ts'
import type { DrainedJob, JobHandler, Queue, QueueSettings } from '../../lib/job-queue.ts'

export interface Periodic<T> {
  /** One pass now in this process, beside the scheduled ones (passes must tolerate that). */
  runNow: () => Promise<T>
}

export interface Jobs {
  /**
   * Queues a job inside the caller's transaction: it exists exactly when the
   * transaction commits, so a recorded intent (an instance in `provisioning`)
   * never lacks its job, and a rolled-back one never runs.
   */
  send: <T extends object>(tx: EntityManager, queue: Queue<T>, data: NoInfer<T>, options?: SendOptions) => Promise<string | null>
  /** Creates the queue (idempotent) with its settings when the app is ready and, when this process runs workers (JOB_WORKERS), works it. */
  define: <T extends object>(queue: Queue<T>, handler: JobHandler<NoInfer<T>>) => Promise<void>
  /**
   * A task every `intervalSeconds` across all replicas: a pg-boss `schedule` on a `singleton`
   * queue (see lib/cadence.ts for intervals under a minute), worked by replicas with JOB_WORKERS.
   * A failing pass is logged and the next one runs as usual.
   */
  every: <T>(queue: string, intervalSeconds: number, run: () => Promise<T>) => Periodic<T>
  /**
   * Runs every job of `queue` that is due now, in this process, with the queue's handler, and
   * settles each as the worker would (a throw is a failed attempt, retried with the queue's
   * backoff). Safe beside the workers: each job is fetched by one of them only.
   */
  drain: (queue: Queue<object>) => Promise<DrainedJob[]>
  /** Wakes this process's worker of a queue now instead of at its next poll (after a commit). */
  wake: (queue: Queue<object>) => void
  /** Stops working (waiting a while for jobs in flight) and sending; once, however often called. */
  stop: () => Promise<void>
  /** Whether this process works the queues. */
  readonly working: boolean
  readonly boss: PgBoss
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: Jobs
  }
}

/** pg-boss on the ORM's own pool: its tables live in the `pgboss` schema of the service's database. */
export function createBoss (pool: pg.Pool, options: { supervise: boolean, superviseIntervalSeconds: number, schedule?: boolean }): PgBoss {
  return new PgBoss({
    db: { executeSql: async (text, values) => pool.query(text, values as unknown[]) },
    supervise: options.supervise,
    // Both passes: supervision (maintenance) and monitoring (expired and silent jobs are retried).
    superviseIntervalSeconds: options.superviseIntervalSeconds,
    monitorIntervalSeconds: options.superviseIntervalSeconds,
    // Schedules turn into jobs on worker replicas; one replica per pass claims the turn, and each
    // occurrence is one job whichever replica sends it. Passes every 10 s (not 30) and forwarding
    // every 2 s keep a minute's job within about 12 s of the minute.
    schedule: options.schedule ?? false,
    cronMonitorIntervalSeconds: 10,
    cronWorkerIntervalSeconds: 2
  })
}

/**
 * Background jobs (pg-boss). Every replica can send; replicas with
 * JOB_WORKERS=true also work the queues and supervise expired or silent jobs,
 * which is what makes a job killed with its process run again elsewhere.
 */
export default fp(async (fastify) => {
  const { JOB_WORKERS, JOB_SUPERVISE_SECONDS } = fastify.config
  const pool = await fastify.orm.em.getConnection().getNativeClient() as pg.Pool
  const boss = createBoss(pool, { supervise: JOB_WORKERS, superviseIntervalSeconds: JOB_SUPERVISE_SECONDS, schedule: JOB_WORKERS })
  boss.on('error', (error) => { fastify.log.error({ err: error }, 'Job queue error') })

  // Queues are created and worked once the whole app is ready: an app that
  // fails to start leaves no timers or workers behind.
  const definitions: Array<{ queue: string, options: QueueSettings, handler: JobHandler<never> }> = []
  const periodics: Array<{ queue: string, intervalSeconds: number, run: () => Promise<unknown> }> = []
  const workerIds = new Map<string, string>()
  const closing = new AbortController()
  let started = false
  let stopping: Promise<void> | undefined

  /** One attempt of a job, by a worker or a drain alike: with the job's own logger, between its start and end lines. */
  async function runJob (handler: JobHandler<never>, job: JobWithMetadata<never>): Promise<unknown> {
    const log = fastify.log.child(jobLogBindings(job))
    // Jobs it queues carry the same request id.
    return await withRequestId(requestIdOf(job.data), async () => runLogged(job, log, async () => handler(job, log)))
  }

  /** The passes of one periodic job, `intervalSeconds` apart, until done or closing. */
  async function paced (intervalSeconds: number, run: () => Promise<unknown>, log: FastifyBaseLogger): Promise<void> {
    const { passes } = cadenceOf(intervalSeconds)
    const start = Date.now()
    for (let pass = 0; pass < passes && !closing.signal.aborted; pass++) {
      const wait = start + pass * intervalSeconds * 1000 - Date.now()
      if (wait > 0) await sleep(wait, undefined, { signal: closing.signal, ref: false }).catch(() => {}) // cut short on close
      if (closing.signal.aborted) break
      try {
        await run()
      } catch (error) {
        if (!closing.signal.aborted) log.warn({ err: error }, 'Periodic job pass failed; the next one runs as usual')
      }
    }
  }

  const jobs: Jobs = {
    boss,
    working: JOB_WORKERS,
    send: async (tx, queue, data, options = {}) => boss.send(queue.name, carryRequestId(data), {
      ...options,
      db: fromKysely(tx.getTransactionContext() as Parameters<typeof fromKysely>[0])
    }),
    define: async (queue, handler) => {
      definitions.push({ queue: queue.name, options: queue.settings(fastify.config), handler: timedJob(fastify.serviceMetrics, queue.name, handler as JobHandler<never>) })
    },
    every: (queue, intervalSeconds, run) => {
      cadenceOf(intervalSeconds) // an invalid interval fails here, not at the first run
      periodics.push({ queue, intervalSeconds, run })
      definitions.push({
        queue,
        // One job active at a time across replicas; a missed run is not retried (the next one comes).
        options: { policy: 'singleton', retryLimit: 0, heartbeatSeconds: fastify.config.JOB_HEARTBEAT_SECONDS, expireInSeconds: 900 },
        handler: timedJob(fastify.serviceMetrics, queue, async (_job: JobWithMetadata<never>, log: FastifyBaseLogger) => { await paced(intervalSeconds, run, log) })
      })
      return { runNow: run }
    },
    drain: async ({ name: queue }) => {
      const handler = definitions.find((d) => d.queue === queue)?.handler
      if (handler === undefined) throw new Error(`No handler for queue ${queue}`)
      const done: DrainedJob[] = []
      for (;;) {
        const batch = await boss.fetch<never>(queue, { batchSize: 10, includeMetadata: true })
        if (batch.length === 0) return done
        for (const job of batch) {
          const attempt = { id: job.id, retryCount: job.retryCount }
          try {
            const result = await runJob(handler, job)
            await boss.complete(queue, attempt, result === undefined ? null : { result })
            done.push({ id: job.id, result })
          } catch (error) {
            await boss.fail(queue, attempt, { message: error instanceof Error ? error.message : String(error) })
            done.push({ id: job.id, error })
          }
        }
      }
    },
    // Waits a while for jobs in flight; one still running after that keeps its
    // claim and is retried once its heartbeat goes silent. Periodic jobs end
    // at once (their next run comes with the schedule).
    stop: async () => {
      if (!started) return
      closing.abort()
      stopping ??= boss.stop({ graceful: true, timeout: JOBS_STOP_GRACE_MS, close: false })
      await stopping
    },
    wake: (queue) => {
      const id = workerIds.get(queue.name)
      if (id !== undefined) boss.notifyWorker(id)
    }
  }
  fastify.addHook('onReady', async () => {
    await boss.start()
    started = true
    for (const { queue, options, handler } of definitions) {
      await boss.createQueue(queue, options)
      // createQueue leaves an existing queue as it was: apply today's retry and expiry settings.
      const { policy: _policy, partition: _partition, ...settings } = options
      await boss.updateQueue(queue, settings)
      if (!JOB_WORKERS) continue
      const id = await boss.work(queue, {
        includeMetadata: true,
        localConcurrency: fastify.config.JOB_CONCURRENCY,
        pollingIntervalSeconds: 1
      }, async ([job]) => { await runJob(handler, job as JobWithMetadata<never>) })
      workerIds.set(queue, id)
    }
    if (JOB_WORKERS) {
      for (const { queue, intervalSeconds } of periodics) await boss.schedule(queue, cadenceOf(intervalSeconds).cron, null, { tz: 'UTC' })
    }
  })
  // A job queued while a request is served carries its id (`request_id` on the job's log lines).
  fastify.addHook('onRequest', (request, _reply, done) => { withRequestId(request.id, done) })
  fastify.decorate('jobs', jobs)
  addQueueGauges(fastify.serviceMetrics, { pool, queues: () => definitions.map((d) => d.queue), log: fastify.log })
  fastify.addHook('onClose', jobs.stop)
}, { name: 'jobs', dependencies: ['env', 'orm', 'prometheus'] })
