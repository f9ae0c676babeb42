import t from 'tap'
import { loadConfig } from '../../config/env.ts'
import { startAuthServer } from '../../auth-server/server.ts'
import pg from 'pg'
import { adminQuery, createTestDatabase } from '../support/database.ts'
import { runCli } from '../support/process.ts'
import { tempDir } from './helpers.ts'

t.test('the standalone server requires DATABASE_URL', async (t) => {
  const config = loadConfig({ DATA_DIR: await tempDir(t), JWT_SECRET: 'x'.repeat(40) })
  await t.rejects(startAuthServer({ config, port: 0 }), /requires DATABASE_URL/)
})

t.test('`npm run auth` with a missing or invalid setting: one line per problem, exit status 1, no stack trace', async (t) => {
  const dataDir = await tempDir(t)
  const missing = await runCli('auth-server/server.ts', [], { DATA_DIR: dataDir })
  t.equal(missing.code, 1)
  t.equal(missing.stderr.trim(), 'Invalid configuration: DATABASE_URL=(unset) (the auth server needs the portal\'s PostgreSQL); ' +
    'allowed: a postgres:// or postgresql:// connection URL; example: DATABASE_URL=postgres://user:password@db.example.com:5432/erp_portal')
  const invalid = await runCli('auth-server/server.ts', [], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/x', HANDOFF_SECRET: 'too-short-handoff', AUTH_PORT: '0' })
  t.equal(invalid.code, 1)
  t.same(invalid.stderr.trim().split('\n'), [
    'Invalid configuration: AUTH_PORT="0"; allowed: an integer from 1 to 65535; example: AUTH_PORT=3001',
    'Invalid configuration: HANDOFF_SECRET=(hidden, 17 characters); allowed: at least 32 characters (e.g. `openssl rand -base64 32`); example: HANDOFF_SECRET=$(openssl rand -base64 32)'
  ])
  t.notMatch(invalid.stderr, /too-short-handoff|^\s+at /m)
})

t.test('the standalone server listens on 127.0.0.1, keeps its key across restarts, and closes', async (t) => {
  const dataDir = await tempDir(t)
  const config = loadConfig({ DATABASE_URL: await createTestDatabase(t), DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), BASE_URL: 'https://portal.example.test' })
  const kids: string[] = []
  for (let run = 0; run < 2; run++) {
    const server = await startAuthServer({ config, port: 0, log: () => {} })
    t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    const response = await fetch(`${server.url}/.well-known/jwks.json`)
    const { keys } = await response.json() as { keys: Array<{ kid: string }> }
    kids.push(keys[0]?.kid ?? '')
    await server.close()
    await t.rejects(fetch(`${server.url}/.well-known/jwks.json`), 'closed')
  }
  t.equal(kids[0], kids[1], 'same signing key after a restart')
})

t.test('health: live while the process runs, ready while PostgreSQL answers; AUTH_HOST sets the interface', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: await tempDir(t), JWT_SECRET: 'x'.repeat(40), BASE_URL: 'https://portal.example.test', AUTH_HOST: '0.0.0.0' })
  const server = await startAuthServer({ config, port: 0, log: () => {} })
  t.teardown(() => server.close())
  t.match(server.url, /^http:\/\/0\.0\.0\.0:\d+$/, 'listening on every interface')
  const port = new URL(server.url).port
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`)
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }
  t.same(await get('/health/live'), { status: 200, body: { success: true, status: 'live' } })
  t.same(await get('/health/ready'), { status: 200, body: { success: true, status: 'ready' } })
  t.equal((await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`)).status, 200, 'the other paths still reach the provider')

  await adminQuery(`DROP DATABASE ${pg.escapeIdentifier(new URL(databaseUrl).pathname.slice(1))} WITH (FORCE)`)
  t.same(await get('/health/ready'), { status: 503, body: { success: false, error: { code: 'NOT_READY', message: 'Database is not reachable' } } }, 'not ready without its database')
  t.equal((await get('/health/live')).status, 200, 'but alive')
})
