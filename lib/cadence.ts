/**
 * How a periodic task with an interval in seconds runs on pg-boss `schedule`, whose finest
 * resolution is one job per minute (its throttle slot is 60 s wide, whatever the cron says).
 *
 * - Under a minute: a job every minute that runs `passes` passes `intervalSeconds` apart
 *   (RECONCILE_SECONDS=30: passes at 0 s and 30 s of each job). The queue's `singleton` policy
 *   keeps one job active across replicas, so passes never overlap.
 * - A minute or more: a cron in whole minutes (rounded), one pass per job. Minutes that do not
 *   divide the hour restart at each hour (`*\/7`: minute 0, 7, ..., 56, 0); hours likewise per day.
 */
export interface Cadence {
  cron: string
  passes: number
  intervalSeconds: number
}

export function cadenceOf (intervalSeconds: number): Cadence {
  if (!Number.isInteger(intervalSeconds) || intervalSeconds < 1) throw new Error(`An interval is a whole number of seconds >= 1, not ${intervalSeconds}`)
  if (intervalSeconds < 60) return { cron: '* * * * *', passes: Math.ceil(60 / intervalSeconds), intervalSeconds }
  const minutes = Math.round(intervalSeconds / 60)
  if (minutes === 1) return { cron: '* * * * *', passes: 1, intervalSeconds }
  if (minutes < 60) return { cron: `*/${minutes} * * * *`, passes: 1, intervalSeconds }
  const hours = Math.min(24, Math.round(minutes / 60))
  return { cron: hours === 24 ? '0 0 * * *' : hours === 1 ? '0 * * * *' : `0 */${hours} * * *`, passes: 1, intervalSeconds }
}
