/**
 * Opens an instance's ERP for a call: only while the instance runs, at the address its backend
 * gives on its own network, with the generated administrator password. The first time, the
 * default admin/admin is replaced by the generated password (and that is recorded). Every
 * failure becomes ERP_UNAVAILABLE (503) or ERP_ERROR (502), never a 500.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { createOdooAdapter, DefaultPasswordAnswers, type OdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'
import { ErpFault, ErpUnreachable } from '../../../provisioning/erp/odoo-rpc.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import type { Instance } from '../instances/instance.entity.ts'
import type { ErpCredentialStore } from './erp-credentials.ts'
import { ErpError, ErpUnavailable } from './erp.errors.ts'

export interface ErpAccessDeps {
  backends: BackendRegistry
  databases: Pick<ErpDatabasesPort, 'namesFor'>
  credentials: ErpCredentialStore
  /** Bound on each call to the ERP (ERP_CALL_TIMEOUT_SECONDS). */
  timeoutMs: number
  log: FastifyBaseLogger
}

export type ErpAccess = ReturnType<typeof createErpAccess>

/** The ERP's failures in the service's terms. */
export function erpErrorOf (error: unknown): Error {
  if (error instanceof ErpUnreachable || error instanceof BackendUnavailableError) return ErpUnavailable(`The instance's ERP does not answer: ${error.message}`)
  if (error instanceof ErpFault) return ErpError(error.message, { erp_error: error.faultName })
  return error as Error
}

export function createErpAccess (deps: ErpAccessDeps) {
  const { backends, databases, credentials, timeoutMs, log } = deps

  async function open (em: EntityManager, instance: Instance): Promise<OdooAdapter> {
    if (instance.state !== 'running') throw ErpUnavailable(`The instance is ${instance.state}: its ERP answers once it is running`, { state: instance.state })
    const backend = backends.get(instance.backend)
    const ref = { instanceId: instance.uid, tenantSubdomain: instance.tenant.subdomain, subdomain: instance.subdomain }
    const endpoint = backend.erpEndpoint === undefined ? undefined : await backend.erpEndpoint(ref)
    if (endpoint === undefined) throw ErpUnavailable('The instance\'s ERP is not reachable on its backend right now')
    const secrets = await credentials.read(em, instance)
    if (secrets === undefined) throw ErpUnavailable('The instance has not been provisioned with its ERP credentials yet: restart it')
    const adapter = createOdooAdapter({ endpoint, timeoutMs, database: databases.namesFor(instance.uid).database, adminPassword: secrets.adminPassword })
    if (secrets.adminPasswordSet) {
      await adapter.checkAdmin()
    } else {
      await adapter.setAdminPassword()
      await credentials.markAdminPasswordSet(em, instance)
      log.info({ instanceId: instance.id }, 'The ERP administrator\'s default password was replaced by the generated one')
    }
    return adapter
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
