/**
 * The retention rule of scheduled backups. Of an instance's finished scheduled backups it keeps
 * the newest completed one of each of the last `keepDaily` UTC days (today included) and of each
 * of the last `keepWeekly` ISO weeks (this week included), and always the newest completed backup
 * of the instance, whatever its kind or age; every other finished scheduled backup goes, failed
 * ones included. Manual backups and backups still under way are never touched.
 */
export interface RetainedBackup {
  id: number
  kind: 'manual' | 'scheduled'
  state: 'queued' | 'running' | 'completed' | 'failed'
  createdAt: Date
}

export interface RetentionPolicy { keepDaily: number, keepWeekly: number }

const DAY_MS = 86_400_000

/** Days since the epoch, UTC. */
export const dayOf = (date: Date): number => Math.floor(date.getTime() / DAY_MS)

/** ISO weeks since the epoch (weeks start on Monday; 1970-01-01 was a Thursday). */
export const weekOf = (date: Date): number => Math.floor((dayOf(date) + 3) / 7)

/** The ids to delete. */
export function expiredBackups (backups: RetainedBackup[], policy: RetentionPolicy, now: Date): number[] {
  const newestFirst = [...backups].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)
  const keep = new Set<number>()
  const newestCompleted = newestFirst.find((b) => b.state === 'completed')
  if (newestCompleted !== undefined) keep.add(newestCompleted.id)
  const today = dayOf(now)
  const thisWeek = weekOf(now)
  const days = new Set<number>()
  const weeks = new Set<number>()
  for (const backup of newestFirst) {
    if (backup.kind !== 'scheduled' || backup.state !== 'completed') continue
    const day = dayOf(backup.createdAt)
    const week = weekOf(backup.createdAt)
    if (today - day < policy.keepDaily && !days.has(day)) { days.add(day); keep.add(backup.id) }
    if (thisWeek - week < policy.keepWeekly && !weeks.has(week)) { weeks.add(week); keep.add(backup.id) }
  }
  return newestFirst
    .filter((b) => b.kind === 'scheduled' && (b.state === 'completed' || b.state === 'failed') && !keep.has(b.id))
    .map((b) => b.id)
}
