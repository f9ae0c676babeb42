/**
 * What a backend offers for backups: a runner that dumps and restores next to the instance with
 * files kept by the control plane (Docker), or one whose archives stay in the cluster (Kubernetes),
 * and the errors reading an archive can end in.
 */
import type { Readable } from 'node:stream'
import type { InstanceSpec } from './backend.ts'

/**
 * A restore into another instance than the backup's makes a copy: the source's database name,
 * whose filestore folder takes the instance's database name, and the database gets its own uuid
 * and secret (copy-identity.ts). Absent for a restore in place.
 */
export interface RestoreAsCopy {
  sourceDatabase: string
}

/** A backup archive does not match what was recorded of it (SHA-256 of the whole, or of a part against its manifest). */
export class ArchiveCorruptError extends Error {
  override name = 'ArchiveCorruptError'
}

/** Why an archive kept in the cluster cannot be read now: `missing` (not on the claim), `busy` (the tenant's quota has no room for one more reader), `not-ready` (the reader did not start in time), `unreadable` (the read answered something else than the archive's bytes). */
export class ArchiveReadError extends Error {
  override name = 'ArchiveReadError'
  readonly reason: 'missing' | 'busy' | 'not-ready' | 'unreadable'
  constructor (reason: ArchiveReadError['reason'], message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.reason = reason
  }
}

/**
 * A backup runner whose archives stay with the instances (a volume the control plane does
 * not mount): it makes the whole archive there and reports where it is, its size and SHA-256.
 */
export interface ClusterBackupRunner {
  check: (pgMajor: number) => Promise<void>
  /** Makes the archive of `manifest` (every field but `parts`, which the runner adds); may be run again after a crash. */
  archive: (spec: InstanceSpec, pgMajor: number, request: { backupId: number, manifest: Record<string, unknown> }) => Promise<{ key: string, bytes: number, sha256: string }>
  /**
   * Loads the archive at `key` into `database` (a fresh database of the instance's role, beside its
   * own) and into the instance's data volume, which nothing else may use meanwhile (the instance is
   * stopped). The archive is checked against `sha256` and each part against its manifest first: on
   * a mismatch ArchiveCorruptError, and nothing was changed. The replaced files are kept aside
   * until settleFilestore. May be run again after a crash.
   */
  restore: (spec: InstanceSpec, pgMajor: number, request: { backupId: number, key: string, sha256: string, database: string, copy?: RestoreAsCopy }) => Promise<void>
  /**
   * Ends a restore: the files it swapped in stay and the replaced ones go, or the replaced ones
   * come back (the database could not be promoted). The instance is still stopped. May be run again.
   */
  settleFilestore: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>, pgMajor: number, keep: 'restored' | 'replaced') => Promise<void>
  /** Removes an archive `archive` made; missing is fine. */
  removeArchive: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>, pgMajor: number, key: string) => Promise<void>
  /**
   * The archive's bytes (all `size` of them, or `range`), streamed from where it is kept, once they
   * are known to come: ArchiveReadError otherwise. Whatever was started to read it is removed when
   * the stream ends, fails or is destroyed; a stream that ends short errors instead of ending.
   */
  openArchive: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>, key: string, read: { size: number, range?: { start: number, end: number }, backupId: number }) => Promise<Readable>
  /** Removes what killed reads left (reader pods) once they have ended or outlived their deadline; answers how many. */
  sweep?: () => Promise<number>
}

/**
 * Runs pg_dump / pg_restore and copies the filestore where the instance runs
 * (a one-off container, a Job), with a client image whose PostgreSQL major
 * version is `pgMajor`, the database server's. Files are local paths of the
 * control plane. Every method may be run again after a crash.
 */
export interface BackupRunner {
  /** Throws BackendUnavailableError naming what is missing (the client image, ...) when a backup cannot run. */
  check: (pgMajor: number) => Promise<void>
  /** `pg_dump --format=custom` of the instance's database into `file`. */
  dumpDatabase: (spec: InstanceSpec, pgMajor: number, file: string) => Promise<void>
  /** A tar of the instance's data volume (the filestore, without the web sessions) into `file`. */
  exportFilestore: (spec: InstanceSpec, pgMajor: number, file: string) => Promise<void>
  /** `pg_restore --clean` of `file` into the instance's (empty or existing) database, in one transaction; a copy then gets its own identity. */
  restoreDatabase: (spec: InstanceSpec, pgMajor: number, file: string, copy?: RestoreAsCopy) => Promise<void>
  /**
   * Replaces the data volume's contents with the tar `file` (as exportFilestore made it), keeping
   * the replaced ones aside until settleFilestore; a failed unpack leaves them as they were. The
   * web sessions are left out, and a copy's attachments folder takes `spec.database.name`.
   */
  importFilestore: (spec: InstanceSpec, pgMajor: number, file: string, copy?: RestoreAsCopy) => Promise<void>
  /** Ends an import: the restored files stay and the replaced ones go, or the replaced ones come back. */
  settleFilestore: (spec: InstanceSpec, pgMajor: number, keep: 'restored' | 'replaced') => Promise<void>
  /** Removes what killed attempts left behind (one-off containers) older than `olderThanMs`; answers how many. */
  sweep?: (olderThanMs: number) => Promise<number>
}
