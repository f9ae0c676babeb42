/**
 * Memory stays flat while a 1 GB archive streams: the download is read from disk as it is sent,
 * never held whole. A sparse 1 GiB file (no disk used), downloaded over real HTTP by a client in
 * this process that drops what it receives; the process's RSS is sampled all along. A buffering
 * implementation would grow by the gigabyte; the bound below is generous on purpose.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { measuredDownload, mib, sparseFile } from '../../../support/download-memory.ts'

const GIB = 2 ** 30
const MAX_GROWTH = 400 * 2 ** 20 // freed chunks wait for the garbage collector; a buffered archive would be 1024

t.test('RSS grows by far less than the archive while 1 GiB streams', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'backup-memory-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { app } = await build(t, { env: { BACKUP_DIR: dir, JOB_WORKERS: false } })
  const admin = await signup(app)
  const instance = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  const [row] = await app.sql<{ id: number }>({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, size_bytes, created_at, updated_at, completed_at) VALUES ($1, $2, 'completed', 'manual', '17.0', $3, now(), now(), now()) RETURNING id::int", values: [admin.user.tenant_id, instance, GIB] })
  const key = `${admin.user.tenant_id}/${instance}/backup-${row!.id}.tar`
  mkdirSync(dirname(join(dir, key)), { recursive: true })
  sparseFile(join(dir, key), GIB)
  await app.sql({ text: 'UPDATE backups SET archive_key = $2 WHERE id = $1', values: [row!.id, key] })

  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const { received, before, peak } = await measuredDownload(`${address}/api/instances/${instance}/backups/${row!.id}/download`, bearer(admin.token))
  t.equal(received, GIB, 'the whole archive arrived')
  const growth = peak - before
  t.comment(`RSS before ${mib(before)} MiB, peak ${mib(peak)} MiB, growth ${mib(growth)} MiB for a 1024 MiB archive`)
  t.ok(growth < MAX_GROWTH, `RSS grew by ${mib(growth)} MiB, under ${mib(MAX_GROWTH)} MiB`)
})
