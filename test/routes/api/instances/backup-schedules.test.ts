/** Backup schedules: the routes, the scheduler pass (once a day per instance) and retention, on PostgreSQL. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { createBackupScheduler } from '../../../../plugins/app/backups/backup-scheduler.job.ts'
import { backupTestImage } from '../../../support/backups.ts'

async function app (t: Parameters<typeof build>[0]) {
  const dir = mkdtempSync(join(tmpdir(), 'backup-schedules-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const built = await build(t, { env: { BACKUP_DIR: dir, BACKUP_IMAGE: await backupTestImage(), INSTANCE_BACKENDS: 'docker', JOB_WORKERS: false } })
  return { ...built, dir }
}

const put = (a: FastifyInstance, token: string, id: number, payload: Record<string, unknown>) => a.inject({ method: 'PUT', url: `/api/instances/${id}/backup-schedule`, headers: bearer(token), payload })

t.test('GET answers the defaults, off, until an admin PUTs a schedule; bad input and other companies change nothing', async (t) => {
  const { app: a } = await app(t)
  const admin = await signup(a)
  const id = await recordInstance(a, admin.user.tenant_id, { state: 'running' })
  const get = async (token = admin.token) => a.inject({ method: 'GET', url: `/api/instances/${id}/backup-schedule`, headers: bearer(token) })
  t.same((await get()).json().schedule, { instance_id: id, enabled: false, hour_utc: 2, keep_daily: 7, keep_weekly: 4, last_run_on: null })

  const set = await put(a, admin.token, id, { enabled: true, hour_utc: 23, keep_daily: 3, keep_weekly: 2 })
  t.equal(set.statusCode, 200, set.body)
  t.same(set.json().schedule, { instance_id: id, enabled: true, hour_utc: 23, keep_daily: 3, keep_weekly: 2, last_run_on: null })
  t.same((await get()).json().schedule, set.json().schedule)

  for (const bad of [{ enabled: true, hour_utc: 24, keep_daily: 3, keep_weekly: 2 }, { enabled: true, hour_utc: 1, keep_daily: -1, keep_weekly: 2 }, { enabled: true, hour_utc: 1, keep_daily: 1 }, { enabled: 'yes', hour_utc: 1, keep_daily: 1, keep_weekly: 1 }, { enabled: true, hour_utc: 1.5, keep_daily: 1, keep_weekly: 1 }]) {
    t.equal((await put(a, admin.token, id, bad)).statusCode, 400, JSON.stringify(bad))
  }
  const member = await addMember(a, admin.user.tenant_id)
  t.equal((await get(member.token)).statusCode, 200, 'members may read it')
  t.equal((await put(a, member.token, id, { enabled: false, hour_utc: 1, keep_daily: 1, keep_weekly: 1 })).statusCode, 403, 'only admins set it')
  const other = await signup(a)
  t.equal((await get(other.token)).statusCode, 404)
  t.equal((await put(a, other.token, id, { enabled: false, hour_utc: 1, keep_daily: 1, keep_weekly: 1 })).statusCode, 404)
  t.same((await get()).json().schedule, set.json().schedule, 'unchanged')
  const activity = await a.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE type = 'backup.schedule_updated'", values: [] })
  t.equal(activity.length, 1)
})

t.test('the scheduler takes one scheduled backup per day once the hour has come', async (t) => {
  const { app: a } = await app(t)
  const admin = await signup(a)
  const id = await recordInstance(a, admin.user.tenant_id, { state: 'running' })
  const off = await recordInstance(a, admin.user.tenant_id, { state: 'running' })
  await put(a, admin.token, id, { enabled: true, hour_utc: 10, keep_daily: 7, keep_weekly: 4 })
  await put(a, admin.token, off, { enabled: false, hour_utc: 0, keep_daily: 7, keep_weekly: 4 })
  let now = new Date('2026-11-25T09:59:00Z')
  const scheduler = createBackupScheduler({ em: a.orm.em, sql: a.sql, backups: a.backups.archives, log: a.log, now: () => now })
  const scheduled = async () => a.sql<{ instance_id: number, kind: string }>({ text: "SELECT instance_id::int, kind FROM backups WHERE kind = 'scheduled' ORDER BY id", values: [] })

  t.match(await scheduler.run(), { started: 0 }, 'before its hour')
  now = new Date('2026-11-25T10:04:00Z')
  t.match(await scheduler.run(), { started: 1 })
  t.same(await scheduled(), [{ instance_id: id, kind: 'scheduled' }], 'one, for the enabled schedule only')
  await a.sql({ text: "UPDATE backups SET state = 'completed', completed_at = now()", values: [] })
  now = new Date('2026-11-25T15:00:00Z')
  const again = await Promise.all([scheduler.run(), scheduler.run()])
  t.same(again.map((r) => r.started), [0, 0], 'not twice the same day, even from two passes at once')
  now = new Date('2026-11-26T10:00:00Z')
  t.match(await scheduler.run(), { started: 1 }, 'the next day')
  t.equal((await scheduled()).length, 2)
  t.equal((await a.inject({ method: 'GET', url: `/api/instances/${id}/backup-schedule`, headers: bearer(admin.token) })).json().schedule.last_run_on, '2026-11-26')
  const actors = await a.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE type = 'backup.requested' AND actor_kind = 'system'", values: [] })
  t.equal(actors.length, 2, 'requested by the system')

  // A backup under way is a refusal the next pass may not meet: the day is not used up.
  now = new Date('2026-11-27T10:00:00Z')
  await a.sql({ text: "UPDATE backups SET state = 'running' WHERE id = (SELECT max(id) FROM backups)", values: [] })
  t.match(await scheduler.run(), { started: 0 })
  await a.sql({ text: "UPDATE backups SET state = 'completed'", values: [] })
  t.match(await scheduler.run(), { started: 1 }, 'taken on the next pass')
})

t.test('retention deletes the scheduled backups outside the policy with their archives, never a manual one nor the newest', async (t) => {
  const { app: a, dir } = await app(t)
  const admin = await signup(a)
  const id = await recordInstance(a, admin.user.tenant_id, { state: 'running' })
  await put(a, admin.token, id, { enabled: false, hour_utc: 0, keep_daily: 2, keep_weekly: 1 })
  const add = async (kind: string, state: string, at: string): Promise<number> => {
    const [row] = await a.sql<{ id: number }>({ text: 'INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, created_at, updated_at) VALUES ($1, $2, $3, $4, \'17.0\', $5, $5) RETURNING id::int', values: [admin.user.tenant_id, id, state, kind, at] })
    const key = `${admin.user.tenant_id}/${id}/backup-${row!.id}.tar`
    if (state === 'completed') {
      mkdirSync(dirname(join(dir, key)), { recursive: true })
      writeFileSync(join(dir, key), 'archive')
      await a.sql({ text: 'UPDATE backups SET archive_key = $2 WHERE id = $1', values: [row!.id, key] })
    }
    return row!.id
  }
  const today = await add('scheduled', 'completed', '2026-11-25T02:00:00Z')
  const todayEarlier = await add('scheduled', 'completed', '2026-11-25T01:00:00Z')
  const yesterday = await add('scheduled', 'completed', '2026-11-24T02:00:00Z')
  const twoDaysAgo = await add('scheduled', 'completed', '2026-11-23T02:00:00Z')
  const lastWeek = await add('scheduled', 'completed', '2026-11-18T02:00:00Z')
  const failed = await add('scheduled', 'failed', '2026-11-20T02:00:00Z')
  const manual = await add('manual', 'completed', '2025-01-01T02:00:00Z')
  const scheduler = createBackupScheduler({ em: a.orm.em, sql: a.sql, backups: a.backups.archives, log: a.log, now: () => new Date('2026-11-25T12:00:00Z') })
  t.same(await scheduler.run(), { started: 0, deleted: 4 })
  const left = (await a.sql<{ id: number }>({ text: 'SELECT id::int FROM backups ORDER BY id', values: [] })).map((r) => r.id)
  t.same(left, [today, yesterday, manual], 'today\'s and yesterday\'s newest (this week\'s is today\'s), and the manual one')
  for (const gone of [todayEarlier, twoDaysAgo, lastWeek]) t.notOk(existsSync(join(dir, admin.user.tenant_id, String(id), `backup-${gone}.tar`)), `archive of ${gone} removed`)
  t.ok(existsSync(join(dir, admin.user.tenant_id, String(id), `backup-${today}.tar`)))
  t.ok(failed > 0)
  t.same(await scheduler.run(), { started: 0, deleted: 0 }, 'a second pass finds nothing more')

  // A policy that keeps nothing still keeps the newest completed backup (and manual ones).
  await put(a, admin.token, id, { enabled: false, hour_utc: 0, keep_daily: 0, keep_weekly: 0 })
  t.same(await scheduler.run(), { started: 0, deleted: 1 }, 'all scheduled ones but the newest completed')
  t.same((await a.sql<{ id: number }>({ text: 'SELECT id::int FROM backups ORDER BY id', values: [] })).map((r) => r.id), [today, manual])
  const deletions = await a.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE type = 'backup.deleted'", values: [] })
  t.equal(deletions[0]?.n, 5, 'each deletion in the activity feed')
})
