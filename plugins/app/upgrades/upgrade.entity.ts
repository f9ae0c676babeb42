import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, identityPrimaryKey, timestamp, updatedAt } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { User } from '../users/user.entity.ts'

/** A synced addon module written for another ERP series than an upgrade's target. */
export interface IncompatibleAddon {
  module: string
  erp_series: string
  addon_source_id: number
}

export const UPGRADE_MODES = ['test', 'apply'] as const
export type UpgradeMode = typeof UPGRADE_MODES[number]
export const UPGRADE_STATES = ['queued', 'running', 'succeeded', 'failed', 'rolled_back'] as const
export type UpgradeState = typeof UPGRADE_STATES[number]
/** Upgrades still at work: at most one per instance (a partial unique index says so). */
export const ACTIVE_UPGRADE_STATES: readonly UpgradeState[] = ['queued', 'running']
/**
 * Where the job is: `backup` (waiting for the rollback point, apply) or `staging` (waiting for the
 * copy, test), `upgrade` (the command and the start on the new version), `rollback` (the rollback
 * point being restored after a failure), `done`.
 */
export const UPGRADE_STEPS = ['backup', 'staging', 'upgrade', 'rollback', 'done'] as const
export type UpgradeStep = typeof UPGRADE_STEPS[number]

/**
 * One version upgrade of one instance (docs/upgrades.md): in `apply` mode of the instance itself,
 * with a backup taken first as its rollback point; in `test` mode of a staging copy made for it.
 * `failedModules` and `logTail` come from the upgrade command's output; `incompatibleAddons` are the
 * company's synced addon modules whose version series is not the target's.
 */
const UpgradeSchema = defineEntity({
  name: 'InstanceUpgrade',
  tableName: 'instance_upgrades',
  properties: {
    id: identityPrimaryKey(),
    tenant: () => p.manyToOne(Tenant).index(),
    instance: () => p.manyToOne(Instance).index(),
    fromVersion: p.string().length(20),
    targetVersion: p.string().length(20),
    mode: p.enum(UPGRADE_MODES),
    state: p.enum(UPGRADE_STATES).default('queued'),
    step: p.enum(UPGRADE_STEPS).default('backup'),
    /** The staging copy a test upgrade runs on. */
    stagingInstance: () => p.manyToOne(Instance).nullable().index(),
    /** The backup an apply upgrade returns to on failure. */
    rollbackBackupId: p.bigint('number').nullable(),
    startedAt: timestamp().nullable(),
    finishedAt: timestamp().nullable(),
    /** Milliseconds from start to finish. */
    duration: p.integer().nullable(),
    logTail: p.text().nullable(),
    failedModules: p.json<string[]>().default('[]'),
    incompatibleAddons: p.json<IncompatibleAddon[]>().default('[]'),
    error: p.string().length(1000).nullable(),
    createdBy: () => p.manyToOne(User).nullable(),
    /** The agent client that asked, when an agent did. */
    createdByClient: p.string().length(200).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  },
  uniques: [
    { name: 'instance_upgrades_one_active_per_instance', properties: ['instance'], where: { state: { $in: ['queued', 'running'] } } }
  ]
})

export class InstanceUpgrade extends UpgradeSchema.class {}
UpgradeSchema.setClass(InstanceUpgrade)
