/**
 * `node server.ts` on an installation that has instances but no ERP_CREDENTIALS_KEY
 * yet: it keeps the key their database passwords were derived from (JWT_SECRET's),
 * in DATA_DIR, and says so.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import t from 'tap'
import { jwtDerivedErpCredentialsKey } from '../lib/secrets.ts'
import { createTestDatabase } from './support/database.ts'
import { fillTenantWith } from './support/data.ts'
import { freePort, startServer, waitForReady } from './support/process.ts'

// Real starts of the service: on a busy machine they take longer than tap's default per file.
t.setTimeout(300_000)

t.test('existing instances keep the key of their passwords; the file then stays put when JWT_SECRET changes', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'erp-portal-erp-key-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await createTestDatabase(t)
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  const tenantId = randomUUID()
  await client.query("INSERT INTO tenants (id, name, subdomain, created_at, updated_at) VALUES ($1, 'Existing', $2, now(), now())", [tenantId, `existing-${tenantId.slice(0, 8)}`])
  await fillTenantWith((text, values) => client.query(text, values), tenantId, { instances: 1 })

  const jwtSecret = 'an-existing-deployment-jwt-secret-0001'
  const port = await freePort()
  const portal = startServer({ PORT: String(port), DATABASE_URL: databaseUrl, DATA_DIR: dataDir, JWT_SECRET: jwtSecret, SEED_DEMO: 'false' })
  t.teardown(() => { portal.child.kill('SIGKILL') })
  await waitForReady(`http://127.0.0.1:${port}/health/ready`, portal, 180_000)
  const keyFile = join(dataDir, 'secrets', 'erp-credentials-key')
  t.equal((await readFile(keyFile, 'utf8')).trim(), jwtDerivedErpCredentialsKey(jwtSecret), 'the key the existing passwords were made with')
  t.match(portal.output(), `ERP_CREDENTIALS_KEY was unset: the instances' database passwords were derived from JWT_SECRET, so that key was saved to ${keyFile}`)
  t.notMatch(portal.output(), jwtDerivedErpCredentialsKey(jwtSecret), 'the key itself is not printed')
  portal.child.kill('SIGINT')
  t.equal(await portal.exited, 0)
})
