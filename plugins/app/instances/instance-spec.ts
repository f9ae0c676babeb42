import type { InstanceSpec } from '../../../provisioning/backend.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import type { Instance } from './instance.entity.ts'

/**
 * What a backend needs to reach an instance (`instance.tenant` must be loaded). With
 * `credentials` (the default) the instance's database and role are ensured and the password is
 * real; without, the names are filled in and the password is empty (stop, remove, observe).
 */
export async function instanceSpec (instance: Instance, databases: ErpDatabasesPort, instancesDomain: string, { credentials = true } = {}): Promise<InstanceSpec> {
  const tenant = instance.tenant
  const names = databases.namesFor(instance.uid)
  return {
    instanceUid: instance.uid,
    tenantId: tenant.id,
    tenantSubdomain: tenant.subdomain,
    subdomain: instance.subdomain,
    erpVersion: instance.erpVersion,
    host: `${instance.subdomain}.${instancesDomain}`,
    resources: { memoryMb: instance.memoryMb, cpuMillicores: instance.cpuMillicores, storageGb: instance.storageGb, workers: instance.workers },
    database: credentials
      ? await databases.ensure(instance.uid)
      : { host: databases.host, port: databases.port, name: names.database, user: names.role, password: '' }
  }
}
