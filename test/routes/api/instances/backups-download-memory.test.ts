/**
 * Memory stays flat while a 1 GB archive streams: the download is read from disk as it is sent,
 * never held whole. A sparse 1 GiB file (no disk used), downloaded over real HTTP by a client in
 * this process that drops what it receives; the process's RSS is sampled all along. A buffering
 * implementation would grow by the gigabyte; the bound below is generous on purpose.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, ftruncateSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'

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
  const fd = openSync(join(dir, key), 'w')
  ftruncateSync(fd, GIB) // sparse: reads as zeros, takes no disk
  closeSync(fd)
  await app.sql({ text: 'UPDATE backups SET archive_key = $2 WHERE id = $1', values: [row!.id, key] })

  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${address}/api/instances/${instance}/backups/${row!.id}/download`
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
  const received = await new Promise<number>((resolve, reject) => {
    get(url, { headers: bearer(admin.token) }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`download answered ${res.statusCode}`)); return }
      let bytes = 0
      res.on('data', (chunk: Buffer) => { bytes += chunk.length; peak = Math.max(peak, process.memoryUsage().rss) })
      res.on('end', () => resolve(bytes))
      res.on('error', reject)
    }).on('error', reject)
  })
  clearInterval(sampler)
  t.equal(received, GIB, 'the whole archive arrived')
  const growth = peak - before
  t.comment(`RSS before ${Math.round(before / 2 ** 20)} MiB, peak ${Math.round(peak / 2 ** 20)} MiB, growth ${Math.round(growth / 2 ** 20)} MiB for a 1024 MiB archive`)
  t.ok(growth < MAX_GROWTH, `RSS grew by ${Math.round(growth / 2 ** 20)} MiB, under ${MAX_GROWTH / 2 ** 20} MiB`)
})
