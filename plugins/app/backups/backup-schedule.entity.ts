import { defineEntity, p } from '@mikro-orm/core'
import { createdAt, timestamp, updatedAt } from '../../../database/columns.ts'
import { Instance } from '../instances/instance.entity.ts'
import { Tenant } from '../tenants/tenant.entity.ts'

/**
 * An instance's backup schedule: a scheduled backup every day at `hourUtc`, and the retention
 * policy (keep the newest completed backup of each of the last `keepDaily` days and of each of
 * the last `keepWeekly` ISO weeks). `lastRunOn` is the UTC day of the last scheduled backup taken.
 */
const BackupScheduleSchema = defineEntity({
  name: 'BackupSchedule',
  tableName: 'backup_schedules',
  properties: {
    instance: () => p.oneToOne(Instance).primary().owner().deleteRule('cascade'),
    tenant: () => p.manyToOne(Tenant).index(),
    enabled: p.boolean().default(true),
    hourUtc: p.integer(),
    keepDaily: p.integer(),
    keepWeekly: p.integer(),
    lastRunOn: p.string().length(10).nullable(),
    lastRunAt: timestamp().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt()
  }
})

export class BackupSchedule extends BackupScheduleSchema.class {}
BackupScheduleSchema.setClass(BackupSchedule)
