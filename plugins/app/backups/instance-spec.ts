import type { InstanceSpec } from '../../../provisioning/backend.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import type { Instance } from '../instances/instance.entity.ts'

/** What a backend needs to reach an instance, with working database credentials. `instance.tenant` must be loaded. */
export async function instanceSpec (instance: Instance, databases: ErpDatabasesPort, instancesDomain: string): Promise<InstanceSpec> {
  const tenant = instance.tenant
  return {
    instanceId: instance.uid,
    tenantId: tenant.id,
    tenantSubdomain: tenant.subdomain,
    subdomain: instance.subdomain,
    erpVersion: instance.erpVersion,
    host: `${instance.subdomain}.${instancesDomain}`,
    resources: { memoryMb: instance.memoryMb, cpuMillicores: instance.cpuMillicores, storageGb: instance.storageGb, workers: instance.workers },
    database: await databases.ensure(instance.uid)
  }
}
