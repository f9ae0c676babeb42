/**
 * `node server.ts`: an invalid setting with DATABASE_URL leaves the database
 * untouched; a fixed ERP_IMAGE starts with a warning.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import t from 'tap'
import { createTestDatabase } from './support/database.ts'
import { freePort, startServer, waitForReady, type Running } from './support/process.ts'

const stop = async (running: Running) => {
  running.child.kill('SIGINT')
  return running.exited
}

// Real starts of the service: on a busy machine they take longer than tap's default per file.
t.setTimeout(300_000)

t.test('invalid settings with DATABASE_URL: the database is not touched', async (t) => {
  const databaseUrl = await createTestDatabase(t, { empty: true })
  const run = startServer({ PORT: String(await freePort()), DATABASE_URL: databaseUrl, ERP_IMAGE: 'odoo:{versoin}' })
  t.equal(await run.exited, 1)
  t.match(run.output(), /^Invalid configuration: ERP_IMAGE="odoo:\{versoin\}" \(the only placeholder is \{version\}\)/)
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")
  t.equal(rows[0].n, 0, 'no migration ran on the service database')
})

t.test('a fixed ERP_IMAGE starts, with a warning; the ERP credentials key is generated into DATA_DIR', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-fixed-image-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await createTestDatabase(t)
  const port = await freePort()
  const portal = startServer({ PORT: String(port), DATABASE_URL: databaseUrl, DATA_DIR: dataDir, ERP_IMAGE: 'registry.example.com/erp:pinned', ERP_VERSIONS: '17.0,18.0' })
  t.teardown(() => { portal.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, portal, 180_000)
  t.match(portal.output(), /^Configuration warning: ERP_IMAGE="registry.example.com\/erp:pinned" has no \{version\}: every instance runs this image, whatever ERP version is requested \(ERP_VERSIONS=17.0,18.0\)/m)
  const keyFile = join(dataDir, 'secrets', 'erp-credentials-key')
  t.equal((await stat(keyFile)).mode & 0o777, 0o600, 'the generated key is private')
  t.equal(Buffer.from((await readFile(keyFile, 'utf8')).trim(), 'base64url').length, 32, '32 random bytes')
  t.equal(await stop(portal), 0)
})
