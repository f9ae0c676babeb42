import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * The bindings of a job's own logger (docs/operations.md#log-fields): `job_id` and `queue`,
 * `instance_id` and `tenant_id` when the job's data names them (`instanceId`, `tenantId`), and
 * `request_id` when it carries the id of the request that queued it (`requestId`).
 */
export function jobLogBindings (job: { id: string, name: string, data: unknown }): Record<string, string | number> {
  const data = (typeof job.data === 'object' && job.data !== null ? job.data : {}) as { instanceId?: unknown, tenantId?: unknown, requestId?: unknown }
  return {
    job_id: job.id,
    queue: job.name,
    ...(typeof data.instanceId === 'number' ? { instance_id: data.instanceId } : {}),
    ...(typeof data.tenantId === 'string' ? { tenant_id: data.tenantId } : {}),
    ...(typeof data.requestId === 'string' ? { request_id: data.requestId } : {})
  }
}

interface JobLogger {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
}

/**
 * Runs one attempt of a job between two lines of its own logger: `Job started` (info, with
 * `attempt`) and `Job ended` with `outcome` (`completed` at info; `failed` at warn, with `err` and
 * `last`: whether no retry follows) and `duration_ms`. Every pg-boss worker and drain goes
 * through here, so an operator can follow any job from its queue to its end.
 */
export async function runLogged<T> (job: { retryCount: number, retryLimit: number }, log: JobLogger, run: () => Promise<T>): Promise<T> {
  const attempt = job.retryCount + 1
  const started = performance.now()
  const duration = () => Math.round(performance.now() - started)
  log.info({ attempt }, 'Job started')
  try {
    const result = await run()
    log.info({ outcome: 'completed', attempt, duration_ms: duration() }, 'Job ended')
    return result
  } catch (error) {
    log.warn({ outcome: 'failed', attempt, last: job.retryCount >= job.retryLimit, duration_ms: duration(), err: error }, 'Job ended')
    throw error
  }
}

/** The id of the request (or of the job's original request) being served, for the jobs it queues. */
const requestIds = new AsyncLocalStorage<string>()

/** Runs `next` (the rest of a request, or a job) with `id` as the request id jobs queued from it carry. */
export function withRequestId<T> (id: string | undefined, next: () => T): T {
  return id === undefined ? next() : requestIds.run(id, next)
}

/** A job's data with `requestId` added when it is queued while a request (or a job that carries one) is served. */
export function carryRequestId<T extends object> (data: T): T | (T & { requestId: string }) {
  const id = requestIds.getStore()
  return id === undefined || 'requestId' in data ? data : { ...data, requestId: id }
}

/** The request id a job's data carries, if any. */
export function requestIdOf (data: unknown): string | undefined {
  const id = typeof data === 'object' && data !== null ? (data as { requestId?: unknown }).requestId : undefined
  return typeof id === 'string' ? id : undefined
}
