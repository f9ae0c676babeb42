import fp from 'fastify-plugin'
import type { EntityManager } from '@mikro-orm/postgresql'
import { fromKysely, PgBoss, type JobWithMetadata, type Queue, type SendOptions } from 'pg-boss'
import type pg from 'pg'

export type JobHandler<T> = (job: JobWithMetadata<T>) => Promise<void>

export interface Jobs {
  /**
   * Queues a job inside the caller's transaction: it exists exactly when the
   * transaction commits, so a recorded intent (an instance in `provisioning`)
   * never lacks its job, and a rolled-back one never runs.
   */
  send: (tx: EntityManager, queue: string, data: object, options?: SendOptions) => Promise<string | null>
  /** Creates the queue (idempotent) when the app is ready and, when this process runs workers (JOB_WORKERS), works it. */
  define: <T>(queue: string, options: Omit<Queue, 'name'>, handler: JobHandler<T>) => Promise<void>
  /** Wakes this process's worker of a queue now instead of at its next poll (after a commit). */
  wake: (queue: string) => void
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
export function createBoss (pool: pg.Pool, options: { supervise: boolean, superviseIntervalSeconds: number }): PgBoss {
  return new PgBoss({
    db: { executeSql: async (text, values) => pool.query(text, values as unknown[]) },
    supervise: options.supervise,
    // Both passes: supervision (maintenance) and monitoring (expired and silent jobs are retried).
    superviseIntervalSeconds: options.superviseIntervalSeconds,
    monitorIntervalSeconds: options.superviseIntervalSeconds,
    schedule: false
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
  const boss = createBoss(pool, { supervise: JOB_WORKERS, superviseIntervalSeconds: JOB_SUPERVISE_SECONDS })
  boss.on('error', (error) => { fastify.log.error({ err: error }, 'Job queue error') })

  // Queues are created and worked once the whole app is ready: an app that
  // fails to start leaves no timers or workers behind.
  const definitions: Array<{ queue: string, options: Omit<Queue, 'name'>, handler: JobHandler<never> }> = []
  const workerIds = new Map<string, string>()
  let started = false
  let stopping: Promise<void> | undefined
  const jobs: Jobs = {
    boss,
    working: JOB_WORKERS,
    send: async (tx, queue, data, options = {}) => boss.send(queue, data, {
      ...options,
      db: fromKysely(tx.getTransactionContext() as Parameters<typeof fromKysely>[0])
    }),
    define: async (queue, options, handler) => {
      definitions.push({ queue, options, handler: handler as JobHandler<never> })
    },
    // Waits a while for jobs in flight; one still running after that keeps its
    // claim and is retried once its heartbeat goes silent.
    stop: async () => {
      if (!started) return
      stopping ??= boss.stop({ graceful: true, timeout: 10_000, close: false })
      await stopping
    },
    wake: (queue) => {
      const id = workerIds.get(queue)
      if (id !== undefined) boss.notifyWorker(id)
    }
  }
  fastify.addHook('onReady', async () => {
    await boss.start()
    started = true
    for (const { queue, options, handler } of definitions) {
      await boss.createQueue(queue, options)
      if (!JOB_WORKERS) continue
      const id = await boss.work(queue, {
        includeMetadata: true,
        localConcurrency: fastify.config.JOB_CONCURRENCY,
        pollingIntervalSeconds: 1
      }, async ([job]) => { await handler(job as JobWithMetadata<never>) })
      workerIds.set(queue, id)
    }
  })
  fastify.decorate('jobs', jobs)
  fastify.addHook('onClose', jobs.stop)
}, { name: 'jobs', dependencies: ['env', 'orm'] })
