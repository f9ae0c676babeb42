import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../support/build.ts'
import { waitFor } from '../../support/invitations-flow.ts'

// pg-boss schedules through jobs.every(), with two replicas (two apps) on one database.

interface Run { replica: string, at: number }

function replica (name: string, runs: { minute: Run[], paced: Run[] }) {
  return (app: FastifyInstance) => {
    app.jobs.every('probe-minute', 60, async () => { runs.minute.push({ replica: name, at: Date.now() }) })
    app.jobs.every('probe-paced', 20, async () => { runs.paced.push({ replica: name, at: Date.now() }) })
  }
}

t.test('a schedule makes one run per period across two replicas; a sub-minute interval paces passes inside the minute', { timeout: 260_000 }, async (t) => {
  const runs = { minute: [] as Run[], paced: [] as Run[] }
  const first = await build(t, { routes: replica('a', runs) })
  await build(t, { databaseUrl: first.databaseUrl, routes: replica('b', runs) })
  const jobsOf = (queue: string) => first.app.sql<{ minute: string, count: number, state: string }>({
    text: `SELECT to_char(date_trunc('minute', created_on), 'HH24:MI') AS minute, count(*)::int AS count, min(state::text) AS state
           FROM pgboss.job WHERE name = $1 GROUP BY 1 ORDER BY 1`,
    values: [queue]
  })
  /**
   * The occurrences the replicas forwarded, by the minute each is due in (pg-boss files each under
   * its slot): on a loaded machine an occurrence can be sent after its minute ended, so the jobs'
   * creation minutes alone can show two in one minute when each minute still had one.
   */
  const occurrencesOf = (queue: string) => first.app.sql<{ minute: string, count: number }>({
    text: `SELECT to_char(singleton_on, 'HH24:MI') AS minute, count(*)::int AS count
           FROM pgboss.job WHERE name = '__pgboss__send-it' AND data->>'name' = $1 GROUP BY 1 ORDER BY 1`,
    values: [queue]
  })
  const total = (rows: Array<{ count: number }>) => rows.reduce((sum, row) => sum + row.count, 0)

  // Two periods: the one the replicas started in, and the next.
  const periods = await waitFor(async () => {
    const rows = await jobsOf('probe-minute')
    return rows.length >= 2 && rows.every((r) => r.state === 'completed') ? rows : undefined
  }, 150_000, 'jobs of two minutes')
  const minutes = await occurrencesOf('probe-minute')
  t.ok(minutes.every((m) => m.count === 1), `one occurrence per minute: ${JSON.stringify(minutes)}`)
  t.equal(total(periods), minutes.length, `one job per occurrence: ${JSON.stringify(periods)}`)
  t.equal(runs.minute.length, total(periods), 'each job ran once, on one replica or the other')

  // The paced queue: the first job's passes come from one replica, 20 s apart. That job may have
  // started late in its minute, so its last pass can come after the minute jobs are done.
  await waitFor(async () => runs.paced.length >= 3 ? true : undefined, 70_000, 'three passes of the first paced job')
  const [one, two, three] = runs.paced
  t.ok(one !== undefined && two !== undefined && three !== undefined, 'three passes in the first minute')
  if (one !== undefined && two !== undefined && three !== undefined) {
    t.equal(new Set([one.replica, two.replica, three.replica]).size, 1, 'one replica runs a job\'s passes')
    for (const gap of [two.at - one.at, three.at - two.at]) t.ok(gap >= 19_500 && gap < 22_000, `passes 20 s apart (${gap} ms)`)
  }
  const paced = await occurrencesOf('probe-paced')
  t.ok(paced.every((p) => p.count === 1), `one paced job per minute too: ${JSON.stringify(paced)}`)
  t.equal(total(await jobsOf('probe-paced')), paced.length, 'one paced job per occurrence')
})
