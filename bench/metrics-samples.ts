/**
 * Metric samples for the metrics scenarios: a week of 1-minute samples of one instance (about
 * 10,000 rows) rolled up as the retention job does, and one sample taken just now.
 */
import pg from 'pg'
import { ROLL_UP_HOURS } from '../plugins/app/metrics/metrics.queries.ts'

export const HISTORY_DAYS = 7

export async function prepareMetrics (databaseUrl: string, tenantId: string, instanceId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(`
      INSERT INTO metric_samples (tenant_id, instance_id, sampled_at, cpu_cores, memory_mb, database_mb, volume_mb)
      SELECT $1, $2, m, random(), 200 + random() * 300, 40 + random(), 10 + random()
      FROM generate_series(now() - make_interval(days => $3), now(), interval '1 minute') m`, [tenantId, instanceId, HISTORY_DAYS])
    await client.query(ROLL_UP_HOURS)
  } finally {
    await client.end()
  }
}

/** The history query of the scenario: the week just seeded, at 1-hour steps. */
export function weekAtHourSteps (now = new Date()): string {
  const hour = 3600_000
  const to = new Date(Math.ceil(now.getTime() / hour) * hour)
  const from = new Date(to.getTime() - HISTORY_DAYS * 24 * hour)
  return `from=${from.toISOString()}&to=${to.toISOString()}&step=1h`
}
