import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey, timestamp, updatedAt } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

export const BACKUP_STATES = ['queued', 'running', 'completed', 'failed'] as const
export type BackupState = typeof BACKUP_STATES[number]
/** Backups still at work: at most one per instance (a partial unique index says so). */
export const ACTIVE_BACKUP_STATES: readonly BackupState[] = ['queued', 'running']
export const BACKUP_KINDS = ['manual', 'scheduled'] as const
export type BackupKind = typeof BACKUP_KINDS[number]

/**
 * One backup of one instance: a single archive (manifest.json, the database's
 * pg_dump in custom format, a tar of the filestore volume) in the backup store.
 * `archiveKey` and `archiveSha256` are set when it completes; the archive is
 * never visible under its key before it is whole.
 */
const BackupSchema = defineEntity({
  name: 'Backup',
  tableName: 'backups',
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    instance: () => p.manyToOne(Instance).index(),
    state: p.enum(BACKUP_STATES).default('queued'),
    kind: p.enum(BACKUP_KINDS).default('manual'),
    /** What the job is doing now (dumping the database, copying the filestore, ...), for progress */
    step: p.string().length(100).nullable(),
    /** Archive size in bytes */
    sizeBytes: p.bigint('number').nullable(),
    error: p.string().length(1000).nullable(),
    erpVersion: p.string().length(20),
    /** Major version of the database server the dump came from */
    pgMajor: p.integer().nullable(),
    /** Where the store keeps the archive (relative to the store's root) */
    archiveKey: p.string().length(500).nullable(),
    archiveSha256: p.string().length(64).nullable(),
    createdAt: createdAt(),
    startedAt: timestamp().nullable(),
    completedAt: timestamp().nullable(),
    updatedAt: updatedAt()
  },
  uniques: [
    { name: 'backups_one_active_per_instance', properties: ['instance'], where: { state: { $in: ['queued', 'running'] } } }
  ]
})

export class Backup extends BackupSchema.class {}
BackupSchema.setClass(Backup)
