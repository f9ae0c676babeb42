/**
 * The scheduler pass (a pg-boss schedule on a singleton queue: one pass at a time across
 * replicas). It takes today's scheduled backup of every enabled schedule whose hour has come
 * (a schedule is claimed for the day before its backup is asked for, so two passes never take
 * two; a refusal that may pass, such as a backup or a state change under way, releases the claim
 * for the next pass), then applies every schedule's retention rule, and removes one-off backup
 * containers that killed attempts left behind.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import { systemScope } from '../../../lib/call-scope.ts'
import { isAppError } from '../../../lib/errors.ts'
import { isoUtc, type Sql } from '../../../lib/sql.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { BackupsService } from './backups.service.ts'
import { expiredBackups, type RetainedBackup } from './retention.ts'

export const BACKUP_SCHEDULER_JOB = 'backup-scheduler'
/** One-off containers older than this are leftovers of killed attempts (every dump and restore is bounded by 6 h). */
export const LEFTOVER_AGE_MS = 12 * 3600_000
/** Refusals the next pass may not meet: the claim is released. */
const TRANSIENT = new Set(['BACKUP_IN_PROGRESS', 'INSTANCE_BUSY', 'BACKUP_UNAVAILABLE'])

const DUE = `
SELECT s.instance_id::int AS instance_id, s.tenant_id, s.last_run_on
FROM backup_schedules s JOIN instances i ON i.id = s.instance_id
WHERE s.enabled AND s.hour_utc <= $1 AND s.last_run_on IS DISTINCT FROM $2 AND i.state NOT IN ('deleted', 'deleting')
ORDER BY s.instance_id`
const CLAIM = 'UPDATE backup_schedules SET last_run_on = $2, last_run_at = now() WHERE instance_id = $1 AND last_run_on IS DISTINCT FROM $2 RETURNING instance_id'
const RELEASE = 'UPDATE backup_schedules SET last_run_on = $3 WHERE instance_id = $1 AND last_run_on = $2'
const POLICIES = 'SELECT instance_id::int AS instance_id, tenant_id, keep_daily, keep_weekly FROM backup_schedules ORDER BY instance_id'
const BACKUPS_OF = `SELECT id::int AS id, kind, state, ${isoUtc('created_at')} AS created_at FROM backups WHERE instance_id = $1`

export interface SchedulerDeps {
  em: EntityManager
  sql: Sql
  backups: Pick<BackupsService, 'create' | 'remove'>
  /** Sweeps leftovers of killed attempts (BackupRunners.sweep). */
  sweep?: (olderThanMs: number) => Promise<number>
  log: Pick<FastifyBaseLogger, 'warn'>
  now?: () => Date
}

export function createBackupScheduler (deps: SchedulerDeps) {
  const { sql, backups, log } = deps
  const now = deps.now ?? (() => new Date())
  const scopeOf = (tenantId: string) => systemScope(scopedEntityManager(deps.em, tenantId), tenantId, 'backup-scheduler')

  async function takeDue (at: Date): Promise<number> {
    const today = at.toISOString().slice(0, 10)
    let started = 0
    for (const row of await sql<{ instance_id: number, tenant_id: string, last_run_on: string | null }>({ text: DUE, values: [at.getUTCHours(), today] })) {
      if ((await sql({ text: CLAIM, values: [row.instance_id, today] })).length === 0) continue
      try {
        await backups.create(scopeOf(row.tenant_id), row.instance_id, 'scheduled')
        started++
      } catch (error) {
        const code = isAppError(error) ? error.code : undefined
        if (code === undefined || TRANSIENT.has(code)) await sql({ text: RELEASE, values: [row.instance_id, today, row.last_run_on] })
        log.warn({ err: error, instanceId: row.instance_id }, 'Scheduled backup not taken')
      }
    }
    return started
  }

  async function retain (at: Date): Promise<number> {
    let deleted = 0
    for (const policy of await sql<{ instance_id: number, tenant_id: string, keep_daily: number, keep_weekly: number }>({ text: POLICIES, values: [] })) {
      const rows = await sql<{ id: number, kind: RetainedBackup['kind'], state: RetainedBackup['state'], created_at: string }>({ text: BACKUPS_OF, values: [policy.instance_id] })
      const doomed = expiredBackups(rows.map((r) => ({ id: r.id, kind: r.kind, state: r.state, createdAt: new Date(r.created_at) })), { keepDaily: policy.keep_daily, keepWeekly: policy.keep_weekly }, at)
      for (const id of doomed) {
        try {
          await backups.remove(scopeOf(policy.tenant_id), policy.instance_id, id)
          deleted++
        } catch (error) {
          log.warn({ err: error, backupId: id }, 'Expired backup not deleted; the next pass tries again')
        }
      }
    }
    return deleted
  }

  return {
    async run (): Promise<{ started: number, deleted: number }> {
      const at = now()
      const started = await takeDue(at)
      const deleted = await retain(at)
      await deps.sweep?.(LEFTOVER_AGE_MS).catch((error: unknown) => { log.warn({ err: error }, 'Leftover backup containers not swept') })
      return { started, deleted }
    }
  }
}
