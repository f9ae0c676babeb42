/**
 * The bindings of a job's own logger (docs/operations.md#log-fields): `job_id` and `queue`,
 * and `instance_id` and `tenant_id` when the job's data names them (`instanceId`, `tenantId`).
 */
export function jobLogBindings (job: { id: string, name: string, data: unknown }): Record<string, string | number> {
  const data = (typeof job.data === 'object' && job.data !== null ? job.data : {}) as { instanceId?: unknown, tenantId?: unknown }
  return {
    job_id: job.id,
    queue: job.name,
    ...(typeof data.instanceId === 'number' ? { instance_id: data.instanceId } : {}),
    ...(typeof data.tenantId === 'string' ? { tenant_id: data.tenantId } : {})
  }
}
