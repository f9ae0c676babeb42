import type { Backup, BackupKind, BackupState } from './backup.entity.ts'

export interface BackupView {
  id: number
  instance_id: number
  state: BackupState
  kind: BackupKind
  /** What the job is doing now, while it runs. */
  step: string | null
  /** Archive bytes, once completed. */
  size: number | null
  sha256: string | null
  erp_version: string
  pg_major: number | null
  error: string | null
  created_at: string
  started_at: string | null
  completed_at: string | null
}

const iso = (date: Date | null | undefined): string | null => date == null ? null : date.toISOString()

export function toBackupView (backup: Backup): BackupView {
  return {
    id: backup.id,
    instance_id: typeof backup.instance === 'object' ? backup.instance.id : Number(backup.instance),
    state: backup.state,
    kind: backup.kind,
    step: backup.step ?? null,
    size: backup.sizeBytes ?? null,
    sha256: backup.archiveSha256 ?? null,
    erp_version: backup.erpVersion,
    pg_major: backup.pgMajor ?? null,
    error: backup.error ?? null,
    created_at: backup.createdAt.toISOString(),
    started_at: iso(backup.startedAt),
    completed_at: iso(backup.completedAt)
  }
}
