/**
 * Opens an instance's ERP for a call: only while the instance runs, through the one piece that
 * holds its administrator password (instances/erp-admin-password.ts). Every failure becomes
 * ERP_UNAVAILABLE (503), ERP_DATABASE_NOT_INITIALISED (503) or ERP_ERROR (502), never a 500.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { DefaultPasswordAnswers, type OdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpDatabaseNotInitialised as DatabaseNotInitialised, ErpFault, ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'
import type { Instance } from '../instances/instance.entity.ts'
import type { ErpAdminPassword } from '../instances/erp-admin-password.ts'
import { ErpDatabaseNotInitialised, ErpError, ErpUnavailable } from './erp.errors.ts'

export interface ErpAccessDeps {
  admin: ErpAdminPassword
  log: FastifyBaseLogger
}

export type ErpAccess = ReturnType<typeof createErpAccess>

/** The ERP's failures in the service's terms. */
export function erpErrorOf (error: unknown): Error {
  if (error instanceof DatabaseNotInitialised) return ErpDatabaseNotInitialised('The instance\'s ERP runs, but its database is not initialised: restore a backup into it or re-create the instance')
  if (error instanceof ErpUnreachable || error instanceof BackendUnavailableError) return ErpUnavailable(`The instance's ERP does not answer: ${error.message}`)
  if (error instanceof ErpFault) return ErpError(error.message, { erp_error: error.faultName })
  return error as Error
}

export function createErpAccess ({ admin, log }: ErpAccessDeps) {
  async function open (em: EntityManager, instance: Instance): Promise<OdooAdapter> {
    if (instance.state !== 'running') throw ErpUnavailable(`The instance is ${instance.state}: its ERP answers once it is running`, { state: instance.state })
    return await admin.open(em, instance)
  }

  return {
    /** Runs `work` against the instance's ERP (`instance.tenant` loaded); errors mapped. */
    async withErp<T> (em: EntityManager, instance: Instance, work: (erp: OdooAdapter) => Promise<T>): Promise<T> {
      try {
        return await work(await open(em, instance))
      } catch (error) {
        if (error instanceof DefaultPasswordAnswers) log.error({ instanceId: instance.id }, error.message)
        throw erpErrorOf(error)
      }
    }
  }
}
