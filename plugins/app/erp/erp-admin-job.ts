/**
 * Right after an instance first reports running, replaces the ERP administrator's default
 * password (admin/admin) by the generated one, instead of waiting for the first call into the
 * ERP: the window in which the default works is as short as the ERP takes to answer. Retried
 * while the ERP does not answer; a no-op once the password is set.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import { Instance } from '../instances/instance.entity.ts'
import type { ErpAccess } from './erp-access.ts'

export const ERP_ADMIN_QUEUE = 'erp-admin-password'

export interface ErpAdminJobData {
  tenantId: string
  instanceId: number
}

/** Queues the job in `tx` when the instance's administrator password is not set yet. */
export async function queueAdminPassword (tx: EntityManager, send: (tx: EntityManager, queue: string, data: object) => Promise<unknown>, data: ErpAdminJobData): Promise<void> {
  const [row] = await tx.getConnection().execute<Array<{ pending: boolean }>>(
    'SELECT admin_password_set_at IS NULL AS pending FROM instance_erp_credentials WHERE instance_id = ?', [data.instanceId])
  if (row?.pending === true) await send(tx, ERP_ADMIN_QUEUE, data)
}

export function createErpAdminJob (deps: { em: EntityManager, access: ErpAccess, log: FastifyBaseLogger }) {
  return async function run (job: JobWithMetadata<ErpAdminJobData>): Promise<void> {
    const { tenantId, instanceId } = job.data
    const em = scopedEntityManager(deps.em, tenantId)
    const instance = await em.findOne(Instance, instanceId, { populate: ['tenant'] })
    // Not running any more: the first call into it sets the password instead.
    if (instance === null || instance.state !== 'running') return
    try {
      await deps.access.withErp(em, instance, async () => {})
    } catch (error) {
      const last = job.retryCount >= job.retryLimit
      deps.log[last ? 'error' : 'warn']({ err: error, instanceId, attempt: job.retryCount + 1, last }, 'Replacing the ERP administrator\'s default password failed')
      if (!last) throw error
    }
  }
}
