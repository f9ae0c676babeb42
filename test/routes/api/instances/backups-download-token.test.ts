/** Browser download links: a short-lived token, stored hashed, good for one backup's download only. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { hashDownloadToken } from '../../../../plugins/app/backups/download-links.ts'
import { completedBackup } from '../../../support/backups.ts'

/** An app whose backups are kept in a fresh folder, a company with a running instance, and a completed backup of it. */
async function withBackup (t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'backup-links-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { app } = await build(t, { env: { BACKUP_DIR: dir } })
  const admin = await signup(app)
  const instance = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  return { app, dir, admin, instance, backup: await completedBackup(app, dir, admin.user.tenant_id, instance) }
}

t.test('a download link streams the archive without a bearer token, resumes with Range, and is stored hashed', async (t) => {
  const { app, dir, admin, instance, backup } = await withBackup(t)
  const other = await completedBackup(app, dir, admin.user.tenant_id, instance)

  const issued = await app.inject({ method: 'POST', url: `/api/instances/${instance}/backups/${backup.id}/download-token`, headers: bearer(admin.token) })
  t.equal(issued.statusCode, 201, issued.body)
  const { token, expires_in: expiresIn, download_url: url } = issued.json()
  t.match(token, /^bdl1_[A-Za-z0-9_-]{43}$/)
  t.equal(expiresIn, 300)
  t.match(url, new RegExp(`/api/instances/${instance}/backups/${backup.id}/download-by-token\\?token=`))
  const stored = await app.sql<{ token_hash: string }>({ text: 'SELECT token_hash FROM backup_download_tokens', values: [] })
  t.same(stored.map((r) => r.token_hash), [hashDownloadToken(token)], 'only the SHA-256 is stored')
  t.notOk(JSON.stringify(stored).includes(token))

  const path = `/api/instances/${instance}/backups/${backup.id}/download-by-token?token=${encodeURIComponent(token)}`
  const whole = await app.inject({ method: 'GET', url: path })
  t.equal(whole.statusCode, 200)
  t.ok(whole.rawPayload.equals(backup.bytes), 'the archive, without any Authorization header')
  t.match(whole.headers['content-disposition'], /^attachment; filename=/)
  const tail = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=60000-' } })
  t.equal(tail.statusCode, 206, 'the same token resumes')
  t.ok(tail.rawPayload.equals(backup.bytes.subarray(60000)))

  const refused = async (url: string, headers: Record<string, string> = {}) => {
    const answer = await app.inject({ method: 'GET', url, headers })
    t.equal(answer.statusCode, 401, url)
    t.equal(answer.json().error.code, 'BACKUP_DOWNLOAD_TOKEN_INVALID')
  }
  await refused(`/api/instances/${instance}/backups/${other.id}/download-by-token?token=${encodeURIComponent(token)}`) // another backup
  await refused(`/api/instances/${instance}/backups/${backup.id}/download-by-token`) // none
  await refused(`/api/instances/${instance}/backups/${backup.id}/download-by-token`, bearer(admin.token)) // a bearer is not a download token
  await refused(`/api/instances/${instance}/backups/${backup.id}/download-by-token?token=${encodeURIComponent(admin.token)}`)
  await refused(`/api/instances/${instance}/backups/${backup.id}/download-by-token?token=${encodeURIComponent(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))}`)

  // Expired: the same token, once its time is up.
  await app.sql({ text: "UPDATE backup_download_tokens SET expires_at = now() - interval '1 second'", values: [] })
  await refused(path)
  const activity = await app.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE type LIKE 'backup.%' ORDER BY id", values: [] })
  t.same(activity.map((a) => a.type), ['backup.download_link_created'])
})

t.test('another company cannot mint a link for the backup, nor use one on its own ids', async (t) => {
  const { app, dir, admin, instance, backup } = await withBackup(t)
  const stranger = await signup(app)
  const theirs = await recordInstance(app, stranger.user.tenant_id, { state: 'running' })
  const theirBackup = await completedBackup(app, dir, stranger.user.tenant_id, theirs)

  const minted = await app.inject({ method: 'POST', url: `/api/instances/${instance}/backups/${backup.id}/download-token`, headers: bearer(stranger.token) })
  t.equal(minted.statusCode, 404, 'another company\'s backup does not exist for them')
  t.equal((await app.sql<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM backup_download_tokens', values: [] }))[0]?.n, 0, 'nothing stored')

  const own = (await app.inject({ method: 'POST', url: `/api/instances/${theirs}/backups/${theirBackup.id}/download-token`, headers: bearer(stranger.token) })).json().token
  const cross = await app.inject({ method: 'GET', url: `/api/instances/${instance}/backups/${backup.id}/download-by-token?token=${encodeURIComponent(own)}` })
  t.equal(cross.statusCode, 401, 'a token opens only the backup it was minted for')

  const running = await app.sql<{ id: number }>({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, created_at, updated_at) VALUES ($1, $2, 'running', 'manual', '17.0', now(), now()) RETURNING id::int", values: [admin.user.tenant_id, instance] })
  const early = await app.inject({ method: 'POST', url: `/api/instances/${instance}/backups/${running[0]!.id}/download-token`, headers: bearer(admin.token) })
  t.equal(early.statusCode, 409)
  t.equal(early.json().error.code, 'BACKUP_NOT_COMPLETED')
})
