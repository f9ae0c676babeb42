import type { DatabaseCredentials } from '../../../provisioning/backend.ts'

/** What the instances room needs of provisioning/erp-database.ts. */
export interface ErpDatabasesPort {
  /** The ERP database server as instances reach it. */
  readonly host: string
  readonly port: number
  namesFor: (instanceId: string) => { database: string, role: string }
  /** Creates (or confirms) the instance's database and login role. */
  ensure: (instanceId: string) => Promise<DatabaseCredentials>
  drop: (instanceId: string) => Promise<void>
  sizes: (instanceIds: string[]) => Promise<Map<string, number>>
}
