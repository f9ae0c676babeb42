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
