/** GET /metrics/history: buckets from raw samples and hourly roll-ups, one statement, limits, retention. */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { statementsDuring } from '../../../support/statements.ts'
import { callerSql, type CallerSql } from '../../../../lib/tenant-sql.ts'
import { createMetricsService } from '../../../../plugins/app/metrics/metrics.service.ts'
import type { UsageReader } from '../../../../plugins/app/metrics/usage-reading.ts'

const { app } = await build(t)
const admin = await signup(app)
const HOUR = 3600_000
/** The last whole hour: ranges that end here are made of complete hours. */
const hourEnd = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR)

/**
 * A sample every minute for `days` before hourEnd (and up to now): cpu cycles 0.0 … 0.9 over ten
 * minutes (hourly average 0.45, max 0.9), memory 200 … 259 MB over the hour (average 229.5).
 */
async function seedMinutes (app: FastifyInstance, tenantId: string, id: number, days: number): Promise<number> {
  const [row] = await app.sql<{ n: number }>({
    text: `WITH done AS (
      INSERT INTO metric_samples (tenant_id, instance_id, sampled_at, cpu_cores, memory_mb, database_mb, volume_mb)
      SELECT $1, $2, m, (extract(minute FROM m)::int % 10) / 10.0, 200 + extract(minute FROM m), 50, NULL
      FROM generate_series($3::timestamptz - make_interval(days => $4), now() - interval '1 minute', interval '1 minute') m
      RETURNING 1) SELECT count(*)::int AS n FROM done`,
    values: [tenantId, id, hourEnd.toISOString(), days]
  })
  return row?.n ?? 0
}

type Point = Record<string, number | string | null>

/** The answer's columns back as one object per bucket; every column must be as long as `time`. */
function pointsOf (series: Record<string, Array<number | string | null>> | undefined): Point[] {
  if (series === undefined) return []
  const columns = Object.entries(series)
  const length = series.time?.length ?? 0
  for (const [name, values] of columns) t.equal(values.length, length, `column ${name} has one entry per bucket`)
  return Array.from({ length }, (_, i) => Object.fromEntries(columns.map(([name, values]) => [name, values[i] ?? null])))
}

const history = async (id: number, query: string) => {
  const response = await app.inject({ method: 'GET', url: `/api/instances/${id}/metrics/history${query}`, headers: bearer(admin.token) })
  const body = response.json()
  return { status: response.statusCode, body, points: pointsOf(body.series) }
}

t.test('a week of 1-minute samples at 1-hour steps: one statement, averaged and maxed per hour, the same before and after roll-up', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  const rows = await seedMinutes(app, admin.user.tenant_id, id, 7)
  t.ok(rows >= 10_080, `${rows} samples`)
  const from = new Date(hourEnd.getTime() - 7 * 24 * HOUR).toISOString()
  const query = `?from=${from}&to=${hourEnd.toISOString()}&step=1h`

  let answer: Awaited<ReturnType<typeof history>> | undefined
  const statements = await statementsDuring(app, async () => { answer = await history(id, query) })
  t.same(statements, ['session:metrics-history'], 'one statement, the session check included')
  const raw = answer!
  t.equal(raw.status, 200, JSON.stringify(raw.body).slice(0, 300))
  t.match(raw.body, { success: true, instance_id: id, step: '1h', step_seconds: 3600, from, to: hourEnd.toISOString() })
  t.equal(raw.points.length, 168, 'one point per hour')
  t.same(raw.points[0], {
    time: from, samples: 60, cpu_avg: 0.45, cpu_max: 0.9, memory_avg: 229.5, memory_max: 259,
    database_avg: 50, database_max: 50, volume_avg: null, volume_max: null
  })

  const retention = await app.metrics.retainNow()
  t.ok(retention.hoursRolledUp >= 168, `${retention.hoursRolledUp} hours rolled up`)
  const rolled = await history(id, query)
  t.same(rolled.points, raw.points, 'roll-ups answer what the raw samples did')
  t.same((await history(id, query.replace('step=1h', 'step=1d'))).points.map((p) => Number(p.samples)).reduce((a, b) => a + b), 168 * 60, 'wider buckets weigh each hour by its samples')
  t.same((await app.metrics.retainNow()).hoursRolledUp, 0, 'a second pass has nothing to do')
})

t.test('defaults: the last 24 hours at 5-minute steps', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  await seedMinutes(app, admin.user.tenant_id, id, 2)
  const { status, body, points } = await history(id, '')
  t.equal(status, 200)
  t.equal(body.step, '5m')
  t.equal(Date.parse(body.to) - Date.parse(body.from), 24 * HOUR)
  t.ok(points.length >= 287 && points.length <= 289, `${points.length} points`)
  t.ok(points.every((p) => Number(p.samples) <= 5 && Date.parse(String(p.time)) % 300_000 === 0), 'buckets of five minutes on the clock')
  const times = points.map((p) => String(p.time))
  t.same(times, [...times].sort(), 'oldest first')
})

t.test('more than 1,000 points: 400 naming the allowed step; bad ranges: 400; nothing is read', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  const week = `from=${new Date(hourEnd.getTime() - 7 * 24 * HOUR).toISOString()}&to=${hourEnd.toISOString()}`
  const tooMany = await history(id, `?${week}&step=1m`)
  t.equal(tooMany.status, 400)
  t.match(tooMany.body.error, {
    code: 'METRICS_TOO_MANY_POINTS',
    message: /10080 points .* use step=15m or wider/,
    details: { field: 'step', points: 10080, max_points: 1000, allowed_step: '15m', min_step_seconds: 606 }
  })
  t.equal((await history(id, `?${week}&step=15m`)).status, 200, 'the named step is accepted')
  const backwards = await history(id, `?from=${hourEnd.toISOString()}&to=${new Date(hourEnd.getTime() - HOUR).toISOString()}`)
  t.match(backwards, { status: 400, body: { error: { code: 'METRICS_RANGE_INVALID', details: { field: 'from' } } } })
  for (const query of ['?step=5x', '?step=0m', '?from=yesterday', '?extra=1']) {
    const response = await history(id, query)
    t.equal(response.status, 400, query)
    t.equal(response.body.error.code, 'VALIDATION_FAILED', query)
  }
})

t.test('retention: raw samples past METRICS_RAW_RETENTION_DAYS go after their roll-up; history still covers them hourly', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  await seedMinutes(app, admin.user.tenant_id, id, 9)
  await app.sql({
    text: `INSERT INTO metric_hours (instance_id, hour, tenant_id, samples, cpu_avg, cpu_max, memory_avg, memory_max)
      VALUES ($1, date_trunc('hour', now()) - interval '100 days', $2, 60, 0.1, 0.2, 100, 120)`,
    values: [id, admin.user.tenant_id]
  })
  const result = await app.metrics.retainNow()
  t.ok(result.samplesPruned >= 2 * 24 * 60 - 60, `${result.samplesPruned} raw samples pruned`)
  t.ok(result.hoursPruned >= 1, 'the 100-day-old roll-up is gone')
  const [oldest] = await app.sql<{ age: number }>({ text: 'SELECT extract(epoch FROM now() - min(sampled_at)) / 86400 AS age FROM metric_samples WHERE instance_id = $1', values: [id] })
  t.ok(Number(oldest?.age) <= 7.05, `oldest raw sample ${Number(oldest?.age).toFixed(2)} days old`)

  const from = new Date(hourEnd.getTime() - 9 * 24 * HOUR).toISOString()
  const old = await history(id, `?from=${from}&to=${new Date(hourEnd.getTime() - 8 * 24 * HOUR).toISOString()}&step=15m`)
  t.equal(old.status, 200)
  t.equal(old.points.length, 24, 'a day beyond raw retention: its 24 hours, from the roll-ups')
  t.match(old.points[0], { time: from, samples: 60, cpu_avg: 0.45, cpu_max: 0.9 })
})

t.test('settled buckets are kept: a repeated range reads only around them, and answers what a first read does', async (t) => {
  const id = await recordInstance(app, admin.user.tenant_id)
  await seedMinutes(app, admin.user.tenant_id, id, 3)
  const actor = { kind: 'user' as const, userId: admin.user.id, tenantId: admin.user.tenant_id, role: 'admin' as const, email: admin.email, name: 'Admin', sessionId: 'test' }
  /** Per read, the kept part it read around ($7, $8 of the statement): 'infinity' when none. */
  const keptParts: string[] = []
  const read: CallerSql = async (statement, values) => {
    keptParts.push(values?.[6] === 'infinity' ? 'none' : `${String(values?.[5])}..${String(values?.[6])}`)
    return await callerSql(app.sql, actor)(statement, values)
  }
  /** What a process that kept nothing answers. */
  const firstRead = async (query: { from: string, to: string, step: string }) =>
    await createMetricsService({ reader: {} as UsageReader, intervalSeconds: 60, log: app.log }).history({ read: callerSql(app.sql, actor) }, id, query)
  const iso = (ms: number) => new Date(ms).toISOString()
  /** Ranges at 1-hour and 3-hour steps; `from` may sit inside a bucket. */
  const ranges = (fromMs: number) => ['1h', '3h'].map((step) => ({ from: iso(fromMs), to: iso(hourEnd.getTime() + 2 * HOUR), step }))
  const answers = async (fromMs: number) => {
    for (const range of ranges(fromMs)) t.same(await app.metrics.history({ read }, id, range), await firstRead(range), `step ${range.step} from ${range.from}: the same buckets and times`)
  }
  const start = hourEnd.getTime() - 3 * 24 * HOUR

  await answers(start)
  t.same(keptParts, ['none', 'none'], 'before any roll-up nothing is settled')
  await app.metrics.retainNow()
  // The newest roll-ups taken back: the next pass writes them again, as a later hour would be.
  const newest = hourEnd.getTime() - 6 * HOUR
  await app.sql({ text: 'DELETE FROM metric_hours WHERE instance_id = $1 AND hour >= $2', values: [id, iso(newest)] })
  keptParts.length = 0
  await answers(start)
  t.same(keptParts, ['none', 'none'], 'the first read after a roll-up reads the range whole')
  keptParts.length = 0
  await answers(start)
  const threeHourly = Math.floor(newest / (3 * HOUR)) * 3 * HOUR
  /** Where a range's whole buckets start: at or after its `from`, on the step's boundaries. */
  const whole = (fromMs: number, hours: number) => iso(Math.ceil(fromMs / (hours * HOUR)) * hours * HOUR)
  const around = (fromMs: number) => [`${whole(fromMs, 1)}..${iso(newest)}`, `${whole(fromMs, 3)}..${iso(threeHourly)}`]
  t.same(keptParts, around(start), 'repeated: only what lies after the settled buckets is read')

  keptParts.length = 0
  await answers(start + 17 * 60_000) // "the last three days", 17 minutes later: the first bucket is partial
  await answers(start + 3 * HOUR + 60_000) // and past the next bucket boundaries
  t.same(keptParts, [...around(start + 17 * 60_000), ...around(start + 3 * HOUR + 60_000)], 'a range moving with the clock reads its partial first bucket and what lies after the kept part')

  await app.metrics.retainNow()
  keptParts.length = 0
  await answers(start)
  await answers(start)
  t.same(keptParts.slice(0, 2), around(start), 'new roll-ups: read from the part kept before')
  t.ok(keptParts.slice(2).every((part) => Date.parse(part.split('..')[1]!) > newest), `then the kept part reaches further (${keptParts.slice(2).join(', ')})`)

  const other = await signup(app)
  const range = ranges(start)[0]!
  const foreign = await app.inject({ method: 'GET', url: `/api/instances/${id}/metrics/history?from=${range.from}&to=${range.to}&step=1h`, headers: bearer(other.token) })
  t.equal(foreign.statusCode, 404, 'what is kept for an instance is still only its tenant\'s')
})
