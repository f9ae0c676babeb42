import type { IncompatibleAddon, InstanceUpgrade, UpgradeMode, UpgradeState, UpgradeStep } from './upgrade.entity.ts'

/** An upgrade as the API and the MCP tools show it (schemas/upgrades.ts). */
export interface UpgradeView {
  id: number
  instance_id: number
  from_version: string
  target_version: string
  mode: UpgradeMode
  state: UpgradeState
  step: UpgradeStep
  staging_instance_id: number | null
  rollback_backup_id: number | null
  started_at: string | null
  finished_at: string | null
  duration_ms: number | null
  log_tail: string | null
  failed_modules: string[]
  incompatible_addons: IncompatibleAddon[]
  error: string | null
  created_at: string
}

const iso = (date: Date | null | undefined): string | null => date == null ? null : new Date(date).toISOString()

export function toUpgradeView (upgrade: InstanceUpgrade): UpgradeView {
  return {
    id: upgrade.id,
    instance_id: upgrade.instance.id,
    from_version: upgrade.fromVersion,
    target_version: upgrade.targetVersion,
    mode: upgrade.mode,
    state: upgrade.state,
    step: upgrade.step,
    staging_instance_id: upgrade.stagingInstance?.id ?? null,
    rollback_backup_id: upgrade.rollbackBackupId ?? null,
    started_at: iso(upgrade.startedAt),
    finished_at: iso(upgrade.finishedAt),
    duration_ms: upgrade.duration ?? null,
    log_tail: upgrade.logTail ?? null,
    failed_modules: upgrade.failedModules,
    incompatible_addons: upgrade.incompatibleAddons,
    error: upgrade.error ?? null,
    created_at: new Date(upgrade.createdAt).toISOString()
  }
}
