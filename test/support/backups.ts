/**
 * Helpers for the backup tests on the real Docker engine: the stand-in for
 * `postgres:{pg_major}` (test/support/docker/build-backup-image.sh), known rows
 * in an instance's database and known files in its filestore volume.
 */
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { dockerClient, testImage } from './docker/engine.ts'
import { bearer, type SignedUp } from './accounts.ts'
import { build } from './build.ts'
import { instanceUid } from './instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, uniqueSubdomain, waitForState } from './instances.ts'
import { erpDatabaseNames } from '../../provisioning/erp-database.ts'
import { demuxFrames } from '../../provisioning/docker/logs.ts'

const BUILD_SCRIPT = fileURLToPath(new URL('./docker/build-backup-image.sh', import.meta.url))
let built: Promise<string> | undefined

/** $BACKUP_TEST_IMAGE, else built once per process from the host's PostgreSQL client. */
export function backupTestImage (): Promise<string> {
  built ??= new Promise<string>((resolve, reject) => {
    const fromEnv = process.env.BACKUP_TEST_IMAGE
    const args = fromEnv === undefined || fromEnv === '' ? [BUILD_SCRIPT] : [BUILD_SCRIPT, fromEnv]
    execFile('bash', args, { timeout: 180_000 }, (error, out, err) => {
      if (error !== null) reject(new Error(`${BUILD_SCRIPT} failed: ${error.message}\n${err}`))
      else resolve(out.trim().split('\n').pop() ?? '')
    })
  })
  return built
}

/** SQL on an instance's own database as its own role (as the ERP would), on the server at `adminUrl` (trust auth in tests). */
export async function onInstanceDatabase<T> (adminUrl: string, uid: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(adminUrl)
  const names = erpDatabaseNames(uid)
  url.pathname = `/${names.database}`
  url.username = names.role
  url.password = ''
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/**
 * Runs a shell script in a throw-away container of the stand-in image with the instance's filestore
 * volume at /data; answers its output. It runs as the image's user (odoo, uid 101, as the ERP
 * writes its files); `user: '0'` for a volume no ERP has mounted yet (its root is root's).
 */
export async function inFilestore (subdomain: string, script: string, options: { user?: string } = {}): Promise<string> {
  const docker = dockerClient()
  const container = await docker.createContainer({
    Image: await testImage(),
    ...(options.user === undefined ? {} : { User: options.user }),
    Entrypoint: ['/bin/sh', '-c', script],
    Labels: { 'erp.test-filestore': '1' },
    HostConfig: { Mounts: [{ Type: 'volume', Source: `erp-${subdomain}-data`, Target: '/data' }] }
  })
  try {
    await container.start()
    const { StatusCode } = await container.wait() as { StatusCode: number }
    const logs = await container.logs({ stdout: true, stderr: true }) as unknown as Buffer
    const text = demuxFrames(logs).text
    if (StatusCode !== 0) throw new Error(`filestore script exited ${StatusCode}: ${text}`)
    return text
  } finally {
    await container.remove({ force: true })
  }
}

export interface BackupAnswer { id: number, state: string, step: string | null, size: number | null, sha256: string | null, error: string | null }

/** Polls the backup until it is completed or failed. */
export async function waitForBackup (app: FastifyInstance, token: string, instanceId: number, backupId: number, timeoutMs = 90_000): Promise<BackupAnswer> {
  const deadline = Date.now() + timeoutMs
  let last: BackupAnswer | undefined
  while (Date.now() < deadline) {
    const response = await app.inject({ method: 'GET', url: `/api/instances/${instanceId}/backups/${backupId}`, headers: bearer(token) })
    last = response.json().backup as BackupAnswer
    if (last.state === 'completed' || last.state === 'failed') return last
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  throw new Error(`backup ${backupId} did not finish within ${timeoutMs} ms; last ${JSON.stringify(last)}`)
}

/** A completed backup recorded with an archive of `bytes` (random unless given) in the store at `dir`, its size and SHA-256 matching. */
export async function completedBackup (app: FastifyInstance, dir: string, tenantId: string, instanceId: number, bytes: Buffer = randomBytes(100_000)): Promise<{ id: number, bytes: Buffer, path: string }> {
  const [row] = await app.sql<{ id: number }>({ text: "INSERT INTO backups (tenant_id, instance_id, state, kind, erp_version, created_at, updated_at, completed_at) VALUES ($1, $2, 'completed', 'manual', '17.0', now(), now(), now()) RETURNING id::int", values: [tenantId, instanceId] })
  const id = row!.id
  const key = `${tenantId}/${instanceId}/backup-${id}.tar`
  const path = join(dir, key)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, bytes)
  await app.sql({ text: 'UPDATE backups SET archive_key = $2, archive_sha256 = $3, size_bytes = $4 WHERE id = $1', values: [id, key, createHash('sha256').update(bytes).digest('hex'), bytes.length] })
  return { id, bytes, path }
}

/** Every file of the data volume with its content, one a line, sorted (for inFilestore); not the stand-in ERP's record of its administrator passwords (Odoo keeps them in the database). */
export const LIST_FILES = 'cd /data && find . -type f -not -path "./erp-test-image/*" | sort | while read -r f; do echo "$f $(cat "$f")"; done'

/** The app on the Docker backend with the backup image and its own backup folder; both, and the instances' leftovers, go at teardown. */
export async function buildBackupApp (t: Parameters<typeof build>[0], prefix: string, env: Record<string, unknown> = {}): Promise<{ app: FastifyInstance, databaseUrl: string, backupDir: string }> {
  const backupDir = mkdtempSync(join(tmpdir(), `${prefix}-`))
  t.teardown(() => rmSync(backupDir, { recursive: true, force: true }))
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { BACKUP_IMAGE: await backupTestImage(), BACKUP_DIR: backupDir, ...env }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  return { app, databaseUrl, backupDir }
}

/**
 * A running Docker instance of `person` whose database holds a `partners` table with `names`
 * (ids from 1) and whose filestore holds the files `files` (a shell script) makes.
 */
export async function seededInstance (app: FastifyInstance, databaseUrl: string, person: SignedUp, options: { prefix: string, names: string[], files: string }): Promise<{ id: number, uid: string, subdomain: string }> {
  const subdomain = uniqueSubdomain(options.prefix)
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(person.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const { id } = created.json().instance as { id: number }
  await waitForState(app, person.token, id, ['running'])
  const uid = await instanceUid(app, id)
  await onInstanceDatabase(databaseUrl, uid, async (db) => {
    await db.query('CREATE TABLE partners (id int PRIMARY KEY, name text NOT NULL)')
    for (const [index, name] of options.names.entries()) await db.query('INSERT INTO partners VALUES ($1, $2)', [index + 1, name])
  })
  await inFilestore(subdomain, options.files)
  return { id, uid, subdomain }
}

/** Flips one bit of the byte at `offset` of the file; flipping it again restores the file. */
export function flipByte (file: string, offset = 3000): void {
  const fd = openSync(file, 'r+')
  try {
    const byte = Buffer.alloc(1)
    readSync(fd, byte, 0, 1, offset)
    byte[0] = (byte[0] ?? 0) ^ 0x01
    writeSync(fd, byte, 0, 1, offset)
  } finally {
    closeSync(fd)
  }
}
