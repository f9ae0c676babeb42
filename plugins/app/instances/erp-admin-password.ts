/**
 * The one piece that opens an instance's ERP with its generated administrator password and, the
 * first time, replaces the default admin/admin by it and sets the ERP's `web.base.url` to the
 * instance's address (and records that). The instance jobs run it
 * before an instance is reported running, so a running instance never accepts the default; every
 * call into the ERP (erp-access.ts) opens the ERP through it too.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { createOdooAdapter, DefaultPasswordAnswers, type OdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'
import type { BackendRegistry } from './backend-registry.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import type { Instance } from './instance.entity.ts'
import type { ErpCredentialStore } from './erp-credentials.ts'
import { ErpUnavailable } from '../erp/erp.errors.ts'

export interface ErpAdminPasswordDeps {
  backends: BackendRegistry
  databases: Pick<ErpDatabasesPort, 'namesFor'>
  credentials: ErpCredentialStore
  /** Bound on each call to the ERP (ERP_CALL_TIMEOUT_SECONDS). */
  timeoutMs: number
  /** The instance's address as its users reach it (its subdomain under INSTANCES_DOMAIN): the ERP's web.base.url. */
  urlOf: (instance: Pick<Instance, 'subdomain'>) => string
  log: FastifyBaseLogger
}

export type ErpAdminPassword = ReturnType<typeof createErpAdminPassword>

/** The database was just restored from a backup of `from` (the instance itself, or another). */
export interface Restored { from: Pick<Instance, 'id' | 'uid'> }

export function createErpAdminPassword (deps: ErpAdminPasswordDeps) {
  const { backends, databases, credentials, timeoutMs, urlOf, log } = deps

  /**
   * The instance's ERP (`instance.tenant` loaded), wherever its backend says it answers now.
   * Once the password is recorded as set, one authenticate call checks it still works (and an
   * ERP that answers admin/admin again is DefaultPasswordAnswers); before, it is replaced.
   * Errors are the adapter's (ErpUnreachable, ErpFault) or ErpUnavailable.
   */
  async function open (em: EntityManager, instance: Instance, restored?: Restored): Promise<OdooAdapter> {
    const backend = backends.get(instance.backend)
    const ref = { instanceUid: instance.uid, tenantSubdomain: instance.tenant.subdomain, subdomain: instance.subdomain }
    const endpoint = backend.erpEndpoint === undefined ? undefined : await backend.erpEndpoint(ref)
    if (endpoint === undefined) throw ErpUnavailable('The instance\'s ERP is not reachable on its backend right now')
    // An instance made from a backup got no ERP secrets at its provisioning: they are made here.
    const secrets = restored === undefined ? await credentials.read(em, instance) : await credentials.ensure(em, instance)
    if (secrets === undefined) throw ErpUnavailable('The instance has not been provisioned with its ERP credentials yet: restart it')
    const adapter = createOdooAdapter({ endpoint, fetch: backend.erpFetch, timeoutMs, database: databases.namesFor(instance.uid).database, adminPassword: secrets.adminPassword })
    if (secrets.adminPasswordSet && restored === undefined) {
      await adapter.checkAdmin()
    } else {
      const former = restored === undefined ? undefined : await credentials.read(em, restored.from)
      await adapter.setAdminPassword(former === undefined ? [] : [former.adminPassword])
      // With the password, at first start and after a restore (a copy holds its source's address).
      const replaced = await adapter.setBaseUrl(urlOf(instance))
      await credentials.markAdminPasswordSet(em, instance)
      log.info({ instanceId: instance.id, replacedBaseUrl: replaced }, 'The ERP administrator\'s default password was replaced by the generated one, and its web.base.url set')
    }
    return adapter
  }

  return {
    open,
    /**
     * Before an instance is reported running: its ERP answers to the generated password only, or
     * this throws why not. After a restore the database holds whatever password it held when it
     * was backed up (the default, or the generated one of the instance it came from): replaced again.
     */
    async secure (em: EntityManager, instance: Instance, restored?: Restored): Promise<void> {
      try {
        await open(em, instance, restored)
      } catch (error) {
        if (error instanceof DefaultPasswordAnswers) log.error({ instanceId: instance.id }, error.message)
        throw new Error(`The ERP's administrator password is not secured: ${(error as Error).message}`, { cause: error })
      }
    }
  }
}
