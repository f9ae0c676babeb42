import type { DatabaseCredentials } from '../../../provisioning/backend.ts'

/** What the instances room needs of provisioning/erp-database.ts. */
export interface ErpDatabasesPort {
  /** The ERP database server as instances reach it. */
  readonly host: string
  readonly port: number
  // Keyed by the instance's uid (a uuid), never by its integer id: the names must not change.
  namesFor: (instanceUid: string) => { database: string, role: string }
  /** Creates (or confirms) the instance's database and login role. */
  ensure: (instanceUid: string) => Promise<DatabaseCredentials>
  drop: (instanceUid: string) => Promise<void>
  /** A fresh database beside the instance's, for a restore to load into while the instance's stays whole. */
  stage: (instanceUid: string) => Promise<DatabaseCredentials>
  /** The staged database takes the instance's one's place (idempotent). */
  promote: (instanceUid: string) => Promise<void>
  /** Drops the staged database of a restore that has given up (kept while the instance's own is missing). */
  discardStaged: (instanceUid: string) => Promise<void>
  /** Bytes per instance uid. */
  sizes: (instanceUids: string[]) => Promise<Map<string, number>>
}
