import { Type } from 'typebox'
import { UPGRADE_MODES, UPGRADE_STATES, UPGRADE_STEPS } from '../plugins/app/upgrades/upgrade.entity.ts'
import { BigInt53, InstanceId, Int4, PageInfo, Pagination, ref, Success } from './common.ts'

const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>> (schema: T) => Type.Union([schema, Type.Null()])
const Stamp = Type.String({ format: 'date-time' })
const ErpVersion = Type.String({ pattern: '^\\d+\\.\\d+$', maxLength: 20, description: 'An ERP version, e.g. 17.0', examples: ['17.0'] })

export const UpgradeId = BigInt53({ minimum: 1, description: 'Upgrade id (a positive integer)', examples: [3] })
export const UpgradeParams = Type.Object({ id: InstanceId, upgrade_id: UpgradeId })

export const UpgradeBody = Type.Object({
  target_version: { ...ErpVersion, description: 'The ERP version to upgrade to: the next major version after the instance\'s, offered by the service (ERP_VERSIONS) and configured (ERP_UPGRADE_COMMANDS)' },
  mode: Type.Enum(UPGRADE_MODES, { description: '`test`: on a new staging copy of the instance, which is left as it is; `apply`: on the instance itself, a backup taken first and restored on failure' })
}, { additionalProperties: false })

const IncompatibleAddon = Type.Object({
  module: Type.String({ description: 'The module\'s technical name' }),
  erp_series: Type.String({ description: 'The ERP series its manifest names', examples: ['16.0'] }),
  addon_source_id: BigInt53({ description: 'The addon source it comes from' })
})

export const Upgrade = Type.Object({
  id: UpgradeId,
  instance_id: InstanceId,
  from_version: ErpVersion,
  target_version: ErpVersion,
  mode: Type.Enum(UPGRADE_MODES, { description: 'test or apply' }),
  state: Type.Enum(UPGRADE_STATES, { description: 'queued, running, succeeded, failed (nothing to roll back, or the rollback failed too), or rolled_back (apply failed; the instance runs its old version on the data of its rollback point)' }),
  step: Type.Enum(UPGRADE_STEPS, { description: 'backup (waiting for the rollback point), staging (waiting for the test copy), upgrade, rollback, done' }),
  staging_instance_id: Nullable(BigInt53({ description: 'The staging copy a test upgrade runs on' })),
  rollback_backup_id: Nullable(BigInt53({ description: 'The backup an apply upgrade restores on failure' })),
  started_at: Nullable(Stamp),
  finished_at: Nullable(Stamp),
  duration_ms: Nullable(Int4({ description: 'From the start of the upgrade step to the end' })),
  log_tail: Nullable(Type.String({ description: 'The last lines the upgrade command printed' })),
  failed_modules: Type.Array(Type.String(), { description: 'Modules named on the ERP\'s ERROR lines of the upgrade command\'s output' }),
  incompatible_addons: Type.Array(IncompatibleAddon, { description: 'The company\'s synced addon modules whose manifest names another ERP series than the target' }),
  error: Nullable(Type.String({ description: 'Why it failed or was rolled back' })),
  created_at: Stamp
}, { $id: 'Upgrade', description: 'A version upgrade of an instance (docs/upgrades.md)' })

export const UpgradeResponse = Success({ upgrade: ref(Upgrade) }, { $id: 'UpgradeResponse' })
export const UpgradeListQuery = Pagination
export const UpgradeListResponse = Success({
  upgrades: Type.Array(ref(Upgrade), { description: 'Newest first' }),
  pagination: ref(PageInfo)
}, { $id: 'UpgradeListResponse' })
