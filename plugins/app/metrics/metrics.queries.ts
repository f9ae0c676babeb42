/**
 * The metrics statements. Reads of one instance take the tenant as `$1` (TenantStatement);
 * the sampler and the retention job work across tenants.
 */
import type { TenantStatement } from '../../../lib/tenant-sql.ts'
import type { InstanceState } from '../instances/instance.entity.ts'
import { sqlStates } from '../instances/instance-states.ts'

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** $1 tenant, $2 instance: the instance, its limits and its newest sample (with its age in ms), in one round trip. */
export const CURRENT_METRICS: TenantStatement = {
  name: 'metrics-current',
  text: `
SELECT i.id::float8 AS id, i.uid, i.subdomain, i.backend, i.state, i.memory_mb AS memory_limit_mb, i.cpu_millicores, i.storage_gb,
  t.subdomain AS tenant_subdomain,
  ${ISO('s.sampled_at')} AS sampled_at, (extract(epoch FROM now() - s.sampled_at) * 1000)::float8 AS age_ms,
  s.cpu_cores, s.memory_mb, s.database_mb, s.volume_mb, s.volume_capacity_mb
FROM instances i
JOIN tenants t ON t.id = i.tenant_id
LEFT JOIN LATERAL (
  SELECT sampled_at, cpu_cores, memory_mb, database_mb, volume_mb, volume_capacity_mb FROM metric_samples
  WHERE instance_id = i.id ORDER BY sampled_at DESC LIMIT 1
) s ON true
WHERE i.tenant_id = $1 AND i.id = $2::bigint`
}

export interface CurrentMetricsRow {
  /** bigint, read as float8 (exact below 2^53, as the API's ids). */
  id: number
  uid: string
  subdomain: string
  backend: 'docker' | 'kubernetes'
  state: InstanceState
  memory_limit_mb: number
  cpu_millicores: number
  storage_gb: number
  tenant_subdomain: string
  sampled_at: string | null
  age_ms: number | null
  cpu_cores: number | null
  memory_mb: number | null
  database_mb: number | null
  volume_mb: number | null
  volume_capacity_mb: number | null
}

/** $1 tenant, $2 instance, then cpu, memory, database, volume, volume capacity: one reading, stamped by the database's clock. */
export const INSERT_SAMPLE = `
INSERT INTO metric_samples (tenant_id, instance_id, sampled_at, cpu_cores, memory_mb, database_mb, volume_mb, volume_capacity_mb)
VALUES ($1, $2::bigint, now(), $3, $4, $5, $6, $7)
RETURNING ${ISO('sampled_at')} AS sampled_at`

/**
 * Running instances whose newest sample is older than $1 seconds (or that have none): what a
 * sampler pass reads. A second pass inside the same interval (another replica, a retry) finds
 * nothing to do.
 */
export const DUE_INSTANCES = `
SELECT i.id::float8 AS id, i.uid, i.tenant_id, i.subdomain, i.backend, t.subdomain AS tenant_subdomain
FROM instances i
JOIN tenants t ON t.id = i.tenant_id
WHERE i.state = ${sqlStates(['running'])}
  AND NOT EXISTS (SELECT 1 FROM metric_samples s WHERE s.instance_id = i.id AND s.sampled_at > now() - make_interval(secs => $1))
ORDER BY i.id`

export interface DueInstanceRow {
  id: number
  uid: string
  tenant_id: string
  subdomain: string
  backend: 'docker' | 'kubernetes'
  tenant_subdomain: string
}

/** The weighted average of a column over the rows that have it (hourly rows weigh their sample count). */
const avg = (column: string) => `sum(${column} * n) FILTER (WHERE ${column} IS NOT NULL) / nullif(sum(n) FILTER (WHERE ${column} IS NOT NULL), 0)`

/** Whole series, bucket by bucket: aggregates over this window see the buckets in order, and all share one sort. */
const IN_ORDER = 'FILTER (WHERE b.bucket IS NOT NULL) OVER (ORDER BY b.bucket ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)'

/** A column as JSON array items: `digits` decimals (rounded in floating point: cheaper than numeric), `missing` where a bucket lacks it. */
const column = (expression: string, digits: number, missing: 'null' | '0') =>
  `string_agg(coalesce((round(${expression} * ${10 ** digits}) / ${10 ** digits})::text, '${missing}'), ',') ${IN_ORDER}`

/**
 * What the history statement reads of [lo, hi): roll-ups before the split, raw samples from it on.
 * Read before and after a kept part ($7, $8) as two ranges, each an index range scan of its own
 * (one join against a list of ranges is planned as a scan of the instance's every row).
 */
const ROLLUPS_IN = (lo: string, hi: string) => `SELECT h.hour AS t, h.samples AS n, h.cpu_avg, h.cpu_max, h.memory_avg, h.memory_max, h.database_avg, h.database_max, h.volume_avg, h.volume_max
  FROM metric_hours h
  WHERE h.instance_id = (SELECT id FROM inst) AND h.hour >= ${lo} AND h.hour < ${hi} AND h.hour < (SELECT at FROM split)`
const READINGS_IN = (lo: string, hi: string) => `SELECT s.sampled_at AS t, 1 AS n, s.cpu_cores AS cpu_avg, s.cpu_cores AS cpu_max, s.memory_mb AS memory_avg, s.memory_mb AS memory_max,
    s.database_mb AS database_avg, s.database_mb AS database_max, s.volume_mb AS volume_avg, s.volume_mb AS volume_max
  FROM metric_samples s
  WHERE s.instance_id = (SELECT id FROM inst) AND s.sampled_at >= ${lo} AND s.sampled_at < ${hi} AND s.sampled_at >= (SELECT at FROM split)`

/**
 * $1 tenant, $2 instance, $3 from, $4 to, $5 step (an interval), $6 whether the step is whole
 * hours, $7 and $8 the start and end of a part the caller already holds ('infinity' for both when
 * it holds none): then only what lies before and after that part is read. The series in one
 * statement: raw samples and hourly roll-ups meet at one instant, so no sample is counted twice.
 * Whole-hour steps read roll-ups up to the newest one (few rows for a week); finer steps read raw
 * samples wherever they are still kept. Buckets start at multiples of the step from 2000-01-01
 * UTC; empty buckets are left out.
 *
 * One row, each column already the items of its JSON array (numbers rounded as the instance
 * detail rounds them): the service then neither parses nor re-serialises thousands of numbers.
 * The columns are window aggregates over one window, so the buckets are sorted once, not once per
 * column (as `string_agg(… ORDER BY …)` would before PostgreSQL 16). Bucket starts come as epoch
 * seconds: the database formatting timestamps costs more than the whole query. No row: no such
 * instance; null columns: no buckets.
 *
 * `settled_until` (epoch seconds, whole-hour steps only) is the bucket boundary before which every
 * bucket is made of roll-ups alone and ends within the range: those buckets never change again
 * (roll-ups are written once), so the service may keep them (settled-history.ts).
 */
export const METRICS_HISTORY: TenantStatement = {
  name: 'metrics-history',
  text: `
WITH inst AS (SELECT id FROM instances WHERE tenant_id = $1 AND id = $2::bigint),
split AS (
  SELECT CASE WHEN $6::boolean
    THEN coalesce((SELECT max(hour) + interval '1 hour' FROM metric_hours WHERE instance_id = (SELECT id FROM inst)), '-infinity'::timestamptz)
    ELSE coalesce((SELECT date_trunc('hour', min(sampled_at)) FROM metric_samples WHERE instance_id = (SELECT id FROM inst)), 'infinity'::timestamptz)
  END AS at
),
settled AS (
  SELECT CASE WHEN $6::boolean AND at > '-infinity' THEN date_bin($5::interval, least(at, $4::timestamptz), TIMESTAMPTZ '2000-01-01 00:00:00+00') END AS until
  FROM split
),
rollups AS (
  ${ROLLUPS_IN('$3::timestamptz', 'least($7::timestamptz, $4::timestamptz)')}
  UNION ALL
  ${ROLLUPS_IN('greatest($8::timestamptz, $3::timestamptz)', '$4::timestamptz')}
),
readings AS (
  ${READINGS_IN('$3::timestamptz', 'least($7::timestamptz, $4::timestamptz)')}
  UNION ALL
  ${READINGS_IN('greatest($8::timestamptz, $3::timestamptz)', '$4::timestamptz')}
  UNION ALL
  SELECT * FROM rollups WHERE $5::interval <> interval '1 hour'
),
buckets AS (
  SELECT date_bin($5::interval, t, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, sum(n) AS samples,
    ${avg('cpu_avg')} AS cpu_avg, max(cpu_max) AS cpu_max,
    ${avg('memory_avg')} AS memory_avg, max(memory_max) AS memory_max,
    ${avg('database_avg')} AS database_avg, max(database_max) AS database_max,
    ${avg('volume_avg')} AS volume_avg, max(volume_max) AS volume_max
  FROM readings GROUP BY 1
  UNION ALL
  -- At one-hour steps each roll-up is a bucket as it is (raw samples begin after the last one).
  SELECT * FROM rollups WHERE $5::interval = interval '1 hour'
)
SELECT string_agg(extract(epoch FROM b.bucket)::bigint::text, ',') ${IN_ORDER} AS epochs,
  string_agg(b.samples::text, ',') ${IN_ORDER} AS samples,
  ${column('b.cpu_avg', 3, '0')} AS cpu_avg, ${column('b.cpu_max', 3, '0')} AS cpu_max,
  ${column('b.memory_avg', 1, '0')} AS memory_avg, ${column('b.memory_max', 1, '0')} AS memory_max,
  ${column('b.database_avg', 1, 'null')} AS database_avg, ${column('b.database_max', 1, 'null')} AS database_max,
  ${column('b.volume_avg', 1, 'null')} AS volume_avg, ${column('b.volume_max', 1, 'null')} AS volume_max,
  extract(epoch FROM (SELECT until FROM settled))::bigint AS settled_until
FROM inst LEFT JOIN buckets b ON true
LIMIT 1`
}

/** The series as the statement answers it: per column, its JSON array items; null when there are no buckets. */
export type HistoryColumnsRow = Record<typeof HISTORY_COLUMNS[number] | 'epochs', string | null>

export type HistoryRow = HistoryColumnsRow & { settled_until: string | null }

/** The series' number columns, in the order the answer lists them after `time`. */
export const HISTORY_COLUMNS = ['samples', 'cpu_avg', 'cpu_max', 'memory_avg', 'memory_max', 'database_avg', 'database_max', 'volume_avg', 'volume_max'] as const

/**
 * Rolls every complete hour (ended over 5 minutes ago, so a reading in flight at the hour's end
 * is in) not yet rolled up into metric_hours, per instance after its newest roll-up. Repeat-safe.
 */
export const ROLL_UP_HOURS = `
INSERT INTO metric_hours (instance_id, hour, tenant_id, samples, cpu_avg, cpu_max, memory_avg, memory_max, database_avg, database_max, volume_avg, volume_max)
SELECT s.instance_id, date_trunc('hour', s.sampled_at), s.tenant_id, count(*),
  avg(s.cpu_cores), max(s.cpu_cores), avg(s.memory_mb), max(s.memory_mb),
  avg(s.database_mb), max(s.database_mb), avg(s.volume_mb), max(s.volume_mb)
FROM metric_samples s
LEFT JOIN (SELECT instance_id, max(hour) AS last FROM metric_hours GROUP BY instance_id) h ON h.instance_id = s.instance_id
WHERE s.sampled_at < date_trunc('hour', now() - interval '5 minutes')
  AND (h.last IS NULL OR s.sampled_at >= h.last + interval '1 hour')
GROUP BY s.instance_id, date_trunc('hour', s.sampled_at), s.tenant_id
ON CONFLICT (instance_id, hour) DO UPDATE SET samples = excluded.samples,
  cpu_avg = excluded.cpu_avg, cpu_max = excluded.cpu_max, memory_avg = excluded.memory_avg, memory_max = excluded.memory_max,
  database_avg = excluded.database_avg, database_max = excluded.database_max, volume_avg = excluded.volume_avg, volume_max = excluded.volume_max`

/** Raw samples of hours older than $1 days (whole hours: their roll-up has them all). */
export const PRUNE_SAMPLES = `DELETE FROM metric_samples WHERE sampled_at < date_trunc('hour', now() - make_interval(days => $1))`
/** Roll-ups older than $1 days. */
export const PRUNE_HOURS = 'DELETE FROM metric_hours WHERE hour < now() - make_interval(days => $1)'
