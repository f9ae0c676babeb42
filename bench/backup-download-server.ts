/**
 * The backup download scenario's server: the real app with a completed backup whose archive is
 * BENCH_BACKUP_MB of random bytes in a temporary BACKUP_DIR. It answers the archive's path (for
 * the plain file read the download is compared with) and a download-by-token URL.
 *
 * Started by bench/run.ts with BENCH_CHILD_DATABASE_URL, BENCH_POOL_MAX and BENCH_BACKUP_MB.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { once } from 'node:events'
import { recordInstance } from '../test/support/instance-rows.ts'
import { startBenchApp } from './bench-app.ts'
import { serveUntilStopped } from './child-process.ts'

const megabytes = Number(process.env.BENCH_BACKUP_MB ?? 256)

const dir = mkdtempSync(join(tmpdir(), 'bench-backups-'))
const { app, port, close } = await startBenchApp({ JOB_WORKERS: false, BACKUP_DIR: dir })

const suffix = Math.random().toString(36).slice(2, 10)
const signup = await app.inject({ method: 'POST', url: '/api/signup', payload: { company: `Backups ${suffix}`, subdomain: `bk-${suffix}`, name: 'Bench', email: `bk-${suffix}@example.com`, password: 'correct horse battery staple' } })
const { token, user } = signup.json() as { token: string, user: { tenant_id: string } }
const instanceId = await recordInstance(app, user.tenant_id, { state: 'running' })
const [row] = await app.sql<{ id: number }>({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, created_at, updated_at, completed_at) VALUES ($1, $2, 'completed', 'manual', '17.0', $3, now(), now(), now()) RETURNING id::int", values: [user.tenant_id, instanceId, megabytes * 2 ** 20] })
const backupId = row!.id
const key = `${user.tenant_id}/${instanceId}/backup-${backupId}.tar`
const file = join(dir, key)
mkdirSync(dirname(file), { recursive: true })
const out = createWriteStream(file)
const chunk = randomBytes(2 ** 20)
for (let i = 0; i < megabytes; i++) if (!out.write(chunk)) await once(out, 'drain')
out.end()
await once(out, 'finish')
await app.sql({ text: 'UPDATE backups SET archive_key = $2 WHERE id = $1', values: [backupId, key] })

serveUntilStopped({ port }, async () => {
  await close()
  rmSync(dir, { recursive: true, force: true })
}, {
  archive: async () => ({ file, bytes: megabytes * 2 ** 20 }),
  /** A fresh download URL (a token is good for 5 minutes). */
  downloadUrl: async () => {
    const answer = await app.inject({ method: 'POST', url: `/api/instances/${instanceId}/backups/${backupId}/download-token`, headers: { authorization: `Bearer ${token}` } })
    return (answer.json() as { download_url: string }).download_url.replace('http://127.0.0.1', `http://127.0.0.1:${port}`)
  }
})
