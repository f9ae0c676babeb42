/**
 * One reading of an instance, as the sampler and a live GET /metrics take it: the backend's
 * usage and the database's size, each bounded by a timeout, and its row in metric_samples.
 */
import { within } from '../../../lib/each-limited.ts'
import type { Sql } from '../../../lib/sql.ts'
import { BackendUnavailableError, type BackendName } from '../../../provisioning/backend.ts'
import type { BackendRegistry } from '../instances/backend-registry.ts'
import type { ErpDatabasesPort } from '../instances/erp-databases-port.ts'
import { INSERT_SAMPLE } from './metrics.queries.ts'
import type { UsageNumbers } from './metrics.view.ts'

const MB = 1024 * 1024

export interface ReadableInstance {
  id: number
  uid: string
  subdomain: string
  backend: BackendName
  tenant_subdomain: string
}

export interface UsageReader {
  /** The backend's usage: throws when the backend cannot answer within `timeoutMs`. */
  usage: (instance: ReadableInstance, running: boolean, timeoutMs: number) => Promise<Omit<UsageNumbers, 'databaseMb'>>
  /** MB per instance uid; an empty map when the database server cannot answer in time. */
  databaseSizes: (uids: string[], timeoutMs: number) => Promise<Map<string, number>>
  /** Stores a reading; answers its `sampled_at` (ISO, the database's clock). */
  record: (tenantId: string, instanceId: number, usage: UsageNumbers) => Promise<string>
}

export function createUsageReader (deps: { sql: Sql, backends: BackendRegistry, databases: ErpDatabasesPort }): UsageReader {
  return {
    async usage (instance, running, timeoutMs) {
      const backend = deps.backends.get(instance.backend)
      const spec = { instanceUid: instance.uid, tenantSubdomain: instance.tenant_subdomain, subdomain: instance.subdomain }
      return within(backend.readUsage(spec, { running, timeoutMs }), timeoutMs, () =>
        new BackendUnavailableError(instance.backend, `The ${instance.backend} backend did not report usage within ${timeoutMs} ms`, 'check the backend'))
    },

    async databaseSizes (uids, timeoutMs) {
      try {
        const bytes = await within(deps.databases.sizes(uids), timeoutMs, () => new Error(`pg_database_size took over ${timeoutMs} ms`))
        return new Map([...bytes].map(([uid, size]) => [uid, size / MB]))
      } catch {
        return new Map()
      }
    },

    async record (tenantId, instanceId, usage) {
      const [row] = await deps.sql<{ sampled_at: string }>({
        text: INSERT_SAMPLE,
        values: [tenantId, instanceId, usage.cpuCores, usage.memoryMb, usage.databaseMb, usage.volumeMb, usage.volumeCapacityMb]
      })
      return row?.sampled_at as string
    }
  }
}
