import type { EntityManager } from '@mikro-orm/postgresql'
import { requireAdmin } from '../../../lib/roles.ts'
import type { ActivityService } from '../activity/activity.service.ts'
import { Instance } from '../instances/instance.entity.ts'
import { InstanceNotFound } from '../instances/instances.errors.ts'
import { Tenant } from '../tenants/tenant.entity.ts'
import { BackupSchedule } from './backup-schedule.entity.ts'
import type { CallScope } from '../../../lib/call-scope.ts'

export interface ScheduleView {
  instance_id: number
  enabled: boolean
  hour_utc: number
  keep_daily: number
  keep_weekly: number
  /** UTC day (YYYY-MM-DD) of the last scheduled backup taken. */
  last_run_on: string | null
}

export type ScheduleInput = Omit<ScheduleView, 'instance_id' | 'last_run_on'>

/** What an instance without a schedule answers: off, and the policy it would get. */
export const DEFAULT_SCHEDULE: ScheduleInput = { enabled: false, hour_utc: 2, keep_daily: 7, keep_weekly: 4 }

const view = (instanceId: number, s: BackupSchedule | null): ScheduleView => s === null
  ? { instance_id: instanceId, ...DEFAULT_SCHEDULE, last_run_on: null }
  : { instance_id: instanceId, enabled: s.enabled, hour_utc: s.hourUtc, keep_daily: s.keepDaily, keep_weekly: s.keepWeekly, last_run_on: s.lastRunOn ?? null }

/** Per-instance backup schedules: when the scheduler takes a backup, and how many the retention job keeps. */
export function createSchedulesService ({ activity }: { activity: ActivityService }) {
  async function instanceOf (em: EntityManager, id: number): Promise<Instance> {
    const instance = await em.findOne(Instance, id)
    if (instance === null || instance.state === 'deleted') throw InstanceNotFound()
    return instance
  }

  return {
    async getSchedule ({ em }: Pick<CallScope, 'em'>, instanceId: number): Promise<ScheduleView> {
      await instanceOf(em, instanceId)
      return view(instanceId, await em.findOne(BackupSchedule, { instance: instanceId }))
    },

    /** Sets the whole schedule (admin); the next scheduler pass follows it. */
    async putSchedule ({ em, actor }: Pick<CallScope, 'em' | 'actor'>, instanceId: number, input: ScheduleInput): Promise<ScheduleView> {
      requireAdmin(actor, 'change backup schedules')
      const instance = await instanceOf(em, instanceId)
      return em.transactional(async (tx) => {
        const fields = { enabled: input.enabled, hourUtc: input.hour_utc, keepDaily: input.keep_daily, keepWeekly: input.keep_weekly }
        let schedule = await tx.findOne(BackupSchedule, { instance: instanceId })
        if (schedule === null) schedule = tx.create(BackupSchedule, { instance: tx.getReference(Instance, instanceId), tenant: tx.getReference(Tenant, actor.tenantId), ...fields })
        else Object.assign(schedule, fields)
        activity.record(tx, actor, {
          type: 'backup.schedule_updated',
          title: input.enabled
            ? `Daily backups of ${instance.name} at ${String(input.hour_utc).padStart(2, '0')}:00 UTC, keeping ${input.keep_daily} daily and ${input.keep_weekly} weekly`
            : `Scheduled backups of ${instance.name} turned off`,
          targetType: 'instance',
          targetId: String(instanceId),
          instanceId
        })
        await tx.flush()
        return view(instanceId, schedule)
      })
    }
  }
}

export type SchedulesService = ReturnType<typeof createSchedulesService>
